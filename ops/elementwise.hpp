// Elementwise arithmetic on float32 tensors, differentiable.
//
// Broadcasting: b's shape equals a's shape or is a suffix of it (a bias [n]
// on [m,n], a per-head vector [h,f] on [m,h,f], a scalar of shape []); b is
// repeated over a's leading axes. The result has a's shape. Anything else, a
// dtype other than float32 or mixed devices -> InvalidArgument.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor add(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
// x · factor
Tensor scale(const Tensor& x, float factor);

}  // namespace sgnn::ops
