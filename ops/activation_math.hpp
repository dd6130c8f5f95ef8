// The activation formulas, shared by the CPU and CUDA backends so both
// compute exactly the same function.
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "ops/activation_backend.hpp"

namespace sgnn::ops {

SGNN_HOST_DEVICE float activation_value(Activation kind, float parameter, float x) {
  switch (kind) {
    case Activation::Relu: return x > 0.0f ? x : 0.0f;
    case Activation::Elu: return x > 0.0f ? x : parameter * expm1f(x);
    case Activation::LeakyRelu: return x > 0.0f ? x : parameter * x;
    // exp(−x) overflows to inf for x < −88: 1 / inf is the correct 0.
    case Activation::Sigmoid: return 1.0f / (1.0f + expf(-x));
    case Activation::Tanh: return tanhf(x);
  }
  return x;
}

// f'(x) · grad_y written in terms of y = f(x). ReLU's gradient at 0 is 0, as PyTorch's.
SGNN_HOST_DEVICE float activation_gradient(Activation kind, float parameter, float y, float grad_y) {
  switch (kind) {
    case Activation::Relu: return y > 0.0f ? grad_y : 0.0f;
    case Activation::Elu: return y > 0.0f ? grad_y : grad_y * (y + parameter);
    case Activation::LeakyRelu: return y > 0.0f ? grad_y : grad_y * parameter;
    case Activation::Sigmoid: return grad_y * y * (1.0f - y);
    case Activation::Tanh: return grad_y * (1.0f - y * y);
  }
  return grad_y;
}

}  // namespace sgnn::ops
