// NcclProcessRank: this process as one rank of a multi-process NCCL run (one
// process per GPU, started by mpirun or a scheduler; possibly on several
// hosts). Rank 0 makes the run's unique id (make_nccl_unique_id), the others
// receive it (over MPI, MpiSession::broadcast, or a rendezvous file,
// rendezvous.hpp), and every rank joins with ncclCommInitRank.
//
// NCCL is loaded at run time as for NcclRanks (nccl_ranks.hpp); NVLink SHARP
// (multicast) stays off (NCCL_NVLS_ENABLE=0 unless the user set it).
// Faults: async_error() reports NCCL's asynchronous error of the
// communicator (ncclCommGetAsyncError: a peer vanished, a network error) and
// abort() (ncclCommAbort) releases this rank's pending NCCL work; a watchdog
// thread polls the one and calls the other (watchdog.hpp). Both are thread
// safe. In a build without NCCL every entry point throws that it is missing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.hpp"

namespace sgnn::distributed {

// NCCL's unique id (ncclUniqueId, 128 bytes) for a new run: rank 0 calls it once.
std::vector<uint8_t> make_nccl_unique_id();

class NcclProcessRank {
 public:
  // Joins the run on CUDA device `device`: blocks until all `size` ranks have
  // called it with the same id. Throws sgnn::Error on a wrong id length, a
  // device that is not visible, or an NCCL failure (naming NCCL's error).
  NcclProcessRank(const std::vector<uint8_t>& unique_id, int rank, int size, int device);
  ~NcclProcessRank();  // ncclCommDestroy, unless aborted
  NcclProcessRank(const NcclProcessRank&) = delete;
  NcclProcessRank& operator=(const NcclProcessRank&) = delete;

  Communicator& communicator();
  std::string nccl_version() const;  // "2.28.9"
  // NCCL's asynchronous error of the communicator, or nullopt while there is none.
  std::optional<std::string> async_error() const;
  // ncclCommAbort once (later calls do nothing); the communicator is unusable afterwards.
  void abort();
  // Waits for the rank's stream, surfacing kernel and NCCL errors as exceptions.
  void synchronize() const;

  struct State;  // NCCL handles (nccl/nccl_process.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace sgnn::distributed
