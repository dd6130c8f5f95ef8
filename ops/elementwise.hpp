// Elementwise arithmetic on float32 and bfloat16 tensors, differentiable.
//
// Broadcasting: b's shape equals a's shape or is a suffix of it (a bias [n]
// on [m,n], a per-head vector [h,f] on [m,h,f], a scalar of shape []); b is
// repeated over a's leading axes. The result has a's shape and a's dtype; b
// may have the other floating dtype (a bfloat16 activation plus a float32
// bias). Computed in float, rounded once where a bfloat16 is stored; each
// gradient has its input's dtype (a float32 bias gets float32 column sums of
// the bfloat16 upstream gradient, never rounded to bfloat16). Shapes that do
// not broadcast, integer dtypes or mixed devices -> InvalidArgument.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor add(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
// x · factor
Tensor scale(const Tensor& x, float factor);

}  // namespace sgnn::ops
