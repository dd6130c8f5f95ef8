// Elementwise activations, differentiable, any shape, float32 or bfloat16
// (computed in float, the result and the gradient rounded once to the
// input's dtype), CPU or CUDA.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// max(x, 0)
Tensor relu(const Tensor& x);
// x for x > 0, alpha · (exp(x) − 1) otherwise
Tensor elu(const Tensor& x, float alpha = 1.0f);
// x for x > 0, negative_slope · x otherwise
Tensor leaky_relu(const Tensor& x, float negative_slope = 0.01f);

}  // namespace sgnn::ops
