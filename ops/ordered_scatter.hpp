// A Sum scatter in a fixed order for an index computed afresh each call (a
// backward's targets), inside the library: scatter's sorted path without its
// index plan, so nothing is checked, waited for or cached (the cache keeps
// the last kIndexPlanCacheSize index tensors alive, ops/index_plan.hpp) and
// the call may be captured in a CUDA Graph.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::ops {

// out[n, ...] = Σ over {e : index[e] = n} of src[e, ...], each output's rows
// added in increasing e, as scatter(src, index, num_outputs, Sum) adds them
// under ops::set_deterministic(true); the same bits on every run.
//   src float32 or bfloat16 [E, ...], index int32 [E] with values in
//   [0, num_outputs), which the caller guarantees (not checked);
//   E, num_outputs < 2^31 -> [num_outputs, ...], src's dtype. Not recorded.
Tensor scatter_sum_in_order(const Tensor& src, const Tensor& index, int64_t num_outputs);

}  // namespace sgnn::ops
