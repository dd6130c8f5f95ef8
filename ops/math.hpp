// Elementwise math functions, differentiable, any shape, float32 or bfloat16
// (computed in float, the result and the gradient rounded once to the
// input's dtype), CPU or CUDA. One formula per function
// (ops/math_formulas.hpp) is compiled into both backends.
//
// Values outside a function's domain give what IEEE float gives (log of a
// negative is NaN, of 0 is −inf; sqrt of a negative is NaN). Gradients at
// the points where a function is not differentiable are PyTorch's:
//   sqrt at 0: +inf;  log at 0: ±inf (grad / 0)
//   pow(x, p) at 0 with p < 1: inf or NaN (p · 0^(p−1)); p == 0: 0 everywhere
//   clamp at x == min or x == max: the gradient passes (1), 0 strictly outside
//   abs at 0: 0
// An undefined or integer x, or bad parameters -> InvalidArgument naming the op.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// e^x; gradient e^x (from the saved output)
Tensor exp(const Tensor& x);
// natural logarithm; gradient 1 / x
Tensor log(const Tensor& x);
// √x; gradient 1 / (2√x) (from the saved output)
Tensor sqrt(const Tensor& x);
// x^exponent, the exponent a finite scalar; gradient exponent · x^(exponent−1).
// A negative x with a non-integer exponent gives NaN.
Tensor pow(const Tensor& x, float exponent);
// min(max(x, min), max), NaN stays NaN; min <= max and neither NaN (use
// ±INFINITY for a one-sided clamp), else InvalidArgument.
Tensor clamp(const Tensor& x, float min, float max);
// −x
Tensor neg(const Tensor& x);
// |x|; gradient sign(x), 0 at 0
Tensor abs(const Tensor& x);
// x²; gradient 2x
Tensor square(const Tensor& x);

}  // namespace sgnn::ops
