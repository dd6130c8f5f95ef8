// The Communicator (communicator.hpp) over MPI between processes, for host
// tensors: the CPU tier of multi-process training (mpirun -np N on the CPU),
// the same operations as the NCCL and thread communicators.
//
//   exchange            point-to-point (MPI_Isend/MPI_Irecv), after an
//                       all-to-all of the element counts so that both sides
//                       of every pair check that the sizes match
//   all_gather          MPI_Allgather
//   reduce_scatter_sum  MPI_Reduce_scatter_block (MPI_SUM)
//   all_reduce_sum      MPI_Allreduce (MPI_SUM), every rank gets the same sums
//
// MPI counts are int: messages longer than `max_message_elements` (default
// INT_MAX) are cut into pieces of at most that many elements, so tensors of
// any size move. Sums follow MPI's reduction order, which may differ from a
// single process's by rounding. Tensors: float32, contiguous, on the host.
// Errors: InvalidArgument on wrong tensors or mismatched sizes; sgnn::Error
// when an MPI call fails. Uses its own duplicate of MPI_COMM_WORLD; must be
// destroyed before the session.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>

#include "distributed/communicator.hpp"
#include "distributed/mpi_session.hpp"

namespace sgnn::distributed {

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(const MpiSession& session, int64_t max_message_elements = INT_MAX);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override;
  int size() const override;
  Device device() const override { return Device::cpu(); }
  void exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) override;
  void all_gather(const Tensor& send, const Tensor& receive) override;
  void reduce_scatter_sum(const Tensor& send, const Tensor& receive) override;
  void all_reduce_sum(const std::vector<Tensor>& tensors) override;

  struct State;  // the MPI communicator (mpi/mpi_communicator.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace sgnn::distributed
