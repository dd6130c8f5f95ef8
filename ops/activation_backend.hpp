// Backend entry points of ops/activation.hpp (see ops/backend.hpp). Outputs
// are preallocated with the input's shape; backward functions take what the
// forward saved (the output y, or the input x where y cannot recover it).
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

enum class Activation : unsigned char { Relu, Elu, LeakyRelu, Sigmoid, Tanh };

// y = f(x); `parameter` is ELU's alpha or LeakyReLU's negative slope (unused otherwise).
void activation_forward(Cpu, Activation kind, float parameter, const Tensor& x, Tensor& y);
void activation_forward(Cuda, Activation kind, float parameter, const Tensor& x, Tensor& y);
// grad_x = grad_y · f'(x), computed from the forward output y (ReLU, ELU and
// LeakyReLU are monotone, so y's sign gives x's, and ELU's f'(x) = y + alpha;
// sigmoid's f' = y·(1 − y), tanh's 1 − y²).
void activation_backward(Cpu, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y, Tensor& grad_x);
void activation_backward(Cuda, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y, Tensor& grad_x);

}  // namespace sgnn::ops
