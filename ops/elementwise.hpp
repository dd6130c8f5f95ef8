// Elementwise arithmetic on float32 and bfloat16 tensors, differentiable.
//
// Broadcasting (NumPy's rule): the shapes are aligned at their last axes and
// each pair of extents must be equal or 1 (a missing axis counts as 1); an
// operand is repeated along the axes where its extent is 1. Either operand
// may be the repeated one:
//   x [N, D] op bias [D]          a bias over the rows
//   x [N, D] op s [N, 1]          a per-row value: broadcast a vector s [N]
//                                 over rows with mul(x, reshape(s, {N, 1}))
//   x [N, H, D] op a [N, H, 1]    a per-head value
//   x op Tensor::full({}, c)      a scalar of shape []
//   u [N, 1] op v [1, M]          an outer combination [N, M]
// The result has the broadcast shape and a's dtype; b may have the other
// floating dtype (a bfloat16 activation plus a float32 bias gives bfloat16).
// When b is the larger operand the rule is the same: add(float32 bias [D],
// bfloat16 x [N, D]) is float32 [N, D]; put the operand whose dtype the result
// should have first. Computed in float, rounded once where a bfloat16 is
// stored.
//
// Gradients have their input's shape and dtype: the upstream gradient times
// the partial derivative, summed over the axes along which the input was
// repeated (in float, deterministic; a float32 bias gets float32 sums of a
// bfloat16 upstream gradient, never rounded to bfloat16). div's gradient for b
// is −grad · a / b², as PyTorch's; maximum and minimum send the gradient to
// the selected operand and split it evenly on a tie (a == b), as PyTorch
// does.
//
// Shapes that do not broadcast, integer dtypes, undefined tensors or mixed
// devices -> InvalidArgument naming the op, the argument and the shapes.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // IEEE: x / 0 is ±inf, 0 / 0 NaN
// The larger (smaller) of a and b; NaN where either is NaN.
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// x · factor
Tensor scale(const Tensor& x, float factor);

}  // namespace sgnn::ops
