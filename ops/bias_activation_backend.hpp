// Backend entry points of ops/bias_activation.hpp (see ops/backend.hpp).
// x, y, grad_y, grad_x are viewed as [rows, n]; bias and grad_bias are [n].
#pragma once

#include "ops/backend.hpp"
#include "ops/bias_activation.hpp"

namespace sgnn::ops {

// y = act(x + bias); bias may be undefined.
void bias_activation_forward(Cpu, FusedActivation activation, float parameter, const Tensor& x, const Tensor& bias,
                             Tensor& y);
void bias_activation_forward(Cuda, FusedActivation activation, float parameter, const Tensor& x, const Tensor& bias,
                             Tensor& y);

// grad_x = grad_y · act'(z) computed from the output y (as the activations
// do), and, when grad_bias is defined, grad_bias = Σ_rows grad_x — in the
// same pass over the data (deterministic order, no atomics).
void bias_activation_backward(Cpu, FusedActivation activation, float parameter, const Tensor& y,
                              const Tensor& grad_y, Tensor& grad_x, Tensor& grad_bias);
void bias_activation_backward(Cuda, FusedActivation activation, float parameter, const Tensor& y,
                              const Tensor& grad_y, Tensor& grad_x, Tensor& grad_bias);

}  // namespace sgnn::ops
