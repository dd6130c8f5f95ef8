// Communicator: the collective and point-to-point operations one rank of a
// distributed training run uses, behind one interface so the same training
// code runs over NCCL between GPUs (nccl/nccl_communicator.hpp) and over
// host memory between threads (thread_communicator.hpp, the CPU tier's
// simulated ranks).
//
// Every rank calls the same operations in the same order (they are
// collective, even exchange()). Tensors: float32, contiguous, on device();
// receive tensors are written in place (views from narrow_rows are fine).
// On the GPU the operations are ordered on the library's stream of device()
// like any kernel; no host synchronisation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::distributed {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Device device() const = 0;

  // Grouped point-to-point: sends[p] goes to rank p, receives[p] is filled by
  // rank p's sends[rank()]. Both [size()] long; entries with no elements (or
  // undefined) move nothing; the sizes must match pairwise.
  virtual void exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) = 0;
  // receive [size()·n, ...] <- the sends [n, ...] of all ranks, in rank order.
  virtual void all_gather(const Tensor& send, const Tensor& receive) = 0;
  // receive [n, ...] <- Σ over ranks of block rank() of their send [size()·n, ...].
  virtual void reduce_scatter_sum(const Tensor& send, const Tensor& receive) = 0;
  // Every tensor <- its sum over ranks, in place.
  virtual void all_reduce_sum(const std::vector<Tensor>& tensors) = 0;

  // Bytes this rank sent through the operations above since construction:
  // exchange its sends; the collectives what leaves a rank in the ring
  // algorithms (all-gather (size−1)·n, reduce-scatter (size−1)/size of the
  // send, all-reduce twice that).
  int64_t bytes_sent() const { return bytes_sent_; }

 protected:
  void count_exchange(const std::vector<Tensor>& sends);
  void count_all_gather(const Tensor& send);
  void count_reduce_scatter(const Tensor& send);
  void count_all_reduce(const std::vector<Tensor>& tensors);
  // InvalidArgument unless every defined tensor is float32 on device().
  void check_tensors(const std::vector<Tensor>& tensors, const char* op) const;

 private:
  int64_t bytes_sent_ = 0;
};

}  // namespace sgnn::distributed
