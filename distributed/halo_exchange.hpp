// HaloExchange: one rank's halo exchange as a differentiable op.
//
//   forward   local rows [num_rows, F] -> [num_rows + num_halo, F], laid out
//             [local | halo] as the rank's local adjacency (partition.hpp)
//             expects; every rank calls it together (a collective).
//   backward  the halo rows' gradients go back to their owners, which add
//             them to the gradients of the rows they sent (a row sent to
//             several ranks sums all of them): dLocal = dOut[local] + Σ
//             returned halo gradients.
// The plan (send lists, halo slices, all-gather positions) lives on the
// rank's device; the Communicator passed to the call must outlive backward.
// Rows are float32 or bfloat16; bfloat16 rows travel as float32 for now
// (converted around the exchange, differentiably: the communicators and the
// row kernels move float32), the result is bfloat16 again.
#pragma once

#include <memory>

#include "distributed/communicator.hpp"
#include "distributed/halo_plan.hpp"

namespace sgnn::distributed {

class HaloExchange {
 public:
  HaloExchange(const RankPartition& partition, HaloMode mode, Device device);
  HaloExchange(const GraphPartition& partition, int rank, HaloMode mode, Device device);

  // InvalidArgument on a wrong shape, dtype or device, or a communicator of
  // another rank or size.
  Tensor operator()(Communicator& communicator, const Tensor& local_rows) const;

  int64_t num_rows() const;
  int64_t num_halo() const;
  HaloMode mode() const;

  struct Plan;  // the device index lists (halo_exchange.cpp)

 private:
  std::shared_ptr<const Plan> plan_;
};

}  // namespace sgnn::distributed
