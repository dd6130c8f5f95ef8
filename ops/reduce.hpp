// Sums and means of float32 or bfloat16 tensors, differentiable. The result
// has x's dtype; sums accumulate in float (a bfloat16 result is rounded once).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::ops {

// Over all elements -> shape [] (one element). The mean of an empty tensor is
// NaN, as in PyTorch; its sum is 0.
Tensor sum(const Tensor& x);
Tensor mean(const Tensor& x);
// Over one axis (negative counts from the end), which is removed from the
// shape. Axis out of range or rank 0 -> InvalidArgument.
Tensor sum(const Tensor& x, int64_t axis);
Tensor mean(const Tensor& x, int64_t axis);

}  // namespace sgnn::ops
