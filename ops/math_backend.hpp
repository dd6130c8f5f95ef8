// Backend entry points of ops/math.hpp (see ops/backend.hpp). Outputs are
// preallocated with the input's shape and dtype.
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

enum class MathFunction : unsigned char { Exp, Log, Sqrt, Pow, Clamp, Neg, Abs, Square };

// pow's exponent (first); clamp's bounds (first, second). Unused otherwise.
struct MathParameters {
  float first = 0.0f;
  float second = 0.0f;
};

// y = f(x)
void math_forward(Cpu, MathFunction function, MathParameters parameters, const Tensor& x, Tensor& y);
void math_forward(Cuda, MathFunction function, MathParameters parameters, const Tensor& x, Tensor& y);
// grad_x = grad_y · f'(x) from `saved`: the forward output y where
// math_saves_output(function) (exp, sqrt), the input x otherwise.
void math_backward(Cpu, MathFunction function, MathParameters parameters, const Tensor& saved,
                   const Tensor& grad_y, Tensor& grad_x);
void math_backward(Cuda, MathFunction function, MathParameters parameters, const Tensor& saved,
                   const Tensor& grad_y, Tensor& grad_x);

}  // namespace sgnn::ops
