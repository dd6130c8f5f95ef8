// One rank's NCCL communicator behind the Communicator interface: every
// operation is enqueued on the library's stream of the rank's device
// (cuda::stream), after the kernels that produced its inputs; no host
// synchronisation. Used by both NCCL modes: one process driving every GPU
// (NcclRanks, ncclCommInitAll) and one process per GPU (NcclProcessRank,
// ncclCommInitRank). The ncclComm_t stays owned by the caller.
#pragma once

#include "core/cuda_runtime.hpp"
#include "distributed/communicator.hpp"
#include "distributed/nccl/nccl_library.hpp"

namespace sgnn::distributed {

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const NcclLibrary& nccl, ncclComm_t comm, int rank, int size, Device device);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Device device() const override { return device_; }
  void exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) override;
  void all_gather(const Tensor& send, const Tensor& receive) override;
  void reduce_scatter_sum(const Tensor& send, const Tensor& receive) override;
  void all_reduce_sum(const std::vector<Tensor>& tensors) override;

 private:
  const NcclLibrary& nccl_;
  ncclComm_t comm_;
  int rank_;
  int size_;
  Device device_;
  cudaStream_t stream_;
};

}  // namespace sgnn::distributed
