// NcclRanks: the GPUs of this host as ranks of one process (the documented
// single-process multi-GPU mode; no MPI): one NCCL communicator per GPU from
// ncclCommInitAll, one host thread per GPU driving it on the library's stream
// cuda::stream(device).
//
// NCCL is loaded at run time (dlopen): $SGNN_NCCL_LIBRARY if set, else
// libnccl.so.2 from the loader's path (LD_LIBRARY_PATH), else the library
// found at build time. NVLink SHARP (multicast) is left off: NCCL_NVLS_ENABLE
// is set to 0 unless the user set it. Failures (no NCCL, no such GPU, NCCL
// init errors) throw sgnn::Error naming the cause and what to do.
// In a build without NCCL (SGNN_NCCL=OFF) construction throws that it is missing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/communicator.hpp"

namespace sgnn::distributed {

// Whether this build has the NCCL path.
bool nccl_built();

class NcclRanks {
 public:
  // `devices`: CUDA device ids, one rank each, in rank order (distinct).
  explicit NcclRanks(const std::vector<int>& devices);
  ~NcclRanks();
  NcclRanks(const NcclRanks&) = delete;
  NcclRanks& operator=(const NcclRanks&) = delete;

  int size() const;
  std::string nccl_version() const;  // "2.28.9"
  // Runs body(communicator of rank r) on one thread per rank with cuda:device
  // current. When a rank throws, every communicator is aborted (releasing
  // ranks blocked in NCCL) and the first exception is rethrown; the ranks
  // cannot be used afterwards.
  void run(const std::function<void(Communicator&)>& body);

  struct State;  // NCCL handles (nccl/nccl_ranks.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace sgnn::distributed
