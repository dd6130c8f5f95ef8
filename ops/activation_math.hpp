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
  }
  return x;
}

// f'(x) · grad_y written in terms of y = f(x).
SGNN_HOST_DEVICE float activation_gradient(Activation kind, float parameter, float y, float grad_y) {
  if (y > 0.0f) return grad_y;
  switch (kind) {
    case Activation::Relu: return 0.0f;
    case Activation::Elu: return grad_y * (y + parameter);
    case Activation::LeakyRelu: return grad_y * parameter;
  }
  return grad_y;
}

}  // namespace sgnn::ops
