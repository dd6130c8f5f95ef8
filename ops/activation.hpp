// Elementwise activations, differentiable, any shape, float32 or bfloat16
// (computed in float, the result and the gradient rounded once to the
// input's dtype), CPU or CUDA. The gradient is computed from the saved output
// (ops/activation_math.hpp); ReLU's gradient at 0 is 0, as in PyTorch. An
// undefined or integer x -> InvalidArgument naming the op.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// max(x, 0)
Tensor relu(const Tensor& x);
// x for x > 0, alpha · (exp(x) − 1) otherwise
Tensor elu(const Tensor& x, float alpha = 1.0f);
// x for x > 0, negative_slope · x otherwise
Tensor leaky_relu(const Tensor& x, float negative_slope = 0.01f);
// 1 / (1 + exp(−x)), in (0, 1) (exactly 0 or 1 where float rounds there); gradient y·(1 − y)
Tensor sigmoid(const Tensor& x);
// tanh(x); gradient 1 − y²
Tensor tanh(const Tensor& x);

}  // namespace sgnn::ops
