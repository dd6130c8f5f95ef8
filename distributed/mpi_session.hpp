// MpiSession: this process as one rank of an MPI job (mpirun, mpiexec, or
// srun with PMIx), the multi-process launch of distributed training: one
// process per GPU (or per CPU rank), started and placed by the launcher.
//
// Construct one per process, before any other MPI use and in the main thread;
// MPI is initialised with MPI_THREAD_FUNNELED (only that thread calls MPI)
// and finalised by the destructor. MPI errors are returned, not fatal, and
// throw sgnn::Error naming the call and MPI's message.
// abort() ends every rank of the job (MPI_Abort): the way out when one rank
// fails while the others may be blocked in a collective waiting for it.
// In a build without MPI (SGNN_MPI=OFF) construction throws that it is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sgnn::distributed {

// Whether this build has the MPI launch (configured with MPI found).
bool mpi_built();

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // This rank's index among the ranks on its host and their number
  // (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED): which GPU it takes.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host_name() const { return host_name_; }
  std::string library_version() const;  // "Open MPI v4.1.4, ..." (first line)

  // `bytes` of rank `root` on every rank (any length; collective).
  std::vector<uint8_t> broadcast(std::vector<uint8_t> bytes, int root) const;
  void barrier() const;
  // Ends every process of the job with exit status `code`; never returns.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::string host_name_;
};

}  // namespace sgnn::distributed
