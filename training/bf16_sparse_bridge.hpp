// TEMPORARY BRIDGE (issue 22): the sparse kernels ops::sddmm_* and the HRPB
// SpMM take float32 operands only until their bfloat16 versions land
// (ops::spmm takes bfloat16 natively). Until then those calls of the layers
// go through here: float32 operands pass straight through; bfloat16 ones are
// converted to float32 (ops::cast, differentiable), the float32 op runs, and
// its result is rounded back to bfloat16. That is the rounding of a native BF16 kernel that
// accumulates in float (operands exact in float, one rounding of the output),
// so the numbers are right; only the conversion passes and their float32
// temporaries are extra. Remove this file and call the ops directly once
// they take bfloat16.
#pragma once

#include <functional>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::training::bf16_bridge {

// ops::sddmm_add(adjacency, x, y) in x's dtype (y of x's dtype).
Tensor sddmm_add(const Adjacency& adjacency, const Tensor& x, const Tensor& y);
// float32_op(x) in x's dtype, for a float32-only SpMM plugged into
// GraphInput::weighted_spmm (the HRPB kernel).
Tensor through_float32(const std::function<Tensor(const Tensor&)>& float32_op, const Tensor& x);

}  // namespace sgnn::training::bf16_bridge
