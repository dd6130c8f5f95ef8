// Room in the sparse plan cache (ops/sparse_plan.hpp) for plans registered
// ahead of their use. The cache keeps the kPlanCacheSize most recently used
// plans; a mini-batch pipeline registers each batch's block plans (two a
// block: the CSR and its transpose) when it samples the batch, up to its
// depth of batches before they train, and a plan pushed out meanwhile is
// rebuilt on the host when its batch trains (the block's offsets read back,
// the rows sorted, the segments planned: ~5 ms a block on papers100M-scale
// batches, with a wait for the GPU). While a reservation lives the cache
// keeps `plans` more. Thread safe; reservations add up.
#pragma once

#include <cstdint>

namespace sgnn::ops {

class SparsePlanReservation {
 public:
  // InvalidArgument for a negative count.
  explicit SparsePlanReservation(int64_t plans);
  ~SparsePlanReservation();  // the cache trims back to what the rest ask
  SparsePlanReservation(const SparsePlanReservation&) = delete;
  SparsePlanReservation& operator=(const SparsePlanReservation&) = delete;

 private:
  int64_t plans_;
};

// The cache's capacity now: kPlanCacheSize plus the live reservations.
int64_t sparse_plan_capacity();

}  // namespace sgnn::ops
