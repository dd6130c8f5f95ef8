// y = act(x + bias) in one pass, differentiable: the epilogue of a GCN/GAT
// layer without the intermediate x + bias tensor, forward or backward.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

enum class FusedActivation : unsigned char { None, Relu, Elu, LeakyRelu };

// x [..., n] float32 or bfloat16; bias [n] float32 or bfloat16 on x's
// device, or undefined (no bias). y has x's dtype: computed in float, rounded
// once (a bfloat16 y is the epilogue writing bfloat16 directly). `parameter`
// is ELU's alpha (> 0) or LeakyReLU's negative slope (>= 0) and is ignored
// for None and Relu. Gradients: x (x's dtype), and bias as the column sums
// accumulated in float (CPU: double) and stored in the bias's dtype.
// Bad shapes, dtypes, devices or parameter -> InvalidArgument.
Tensor bias_activation(const Tensor& x, const Tensor& bias, FusedActivation activation, float parameter = 1.0f);

}  // namespace sgnn::ops
