// The formulas of ops/math.hpp, shared by the CPU and CUDA backends so both
// compute exactly the same function.
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "ops/math_backend.hpp"

namespace sgnn::ops {

// Whether the gradient is computed from the output (saved instead of the input).
SGNN_HOST_DEVICE bool math_saves_output(MathFunction function) {
  return function == MathFunction::Exp || function == MathFunction::Sqrt;
}

SGNN_HOST_DEVICE float math_value(MathFunction function, MathParameters parameters, float x) {
  switch (function) {
    case MathFunction::Exp: return expf(x);
    case MathFunction::Log: return logf(x);
    case MathFunction::Sqrt: return sqrtf(x);
    case MathFunction::Pow: return powf(x, parameters.first);
    case MathFunction::Clamp: return x != x ? x : fminf(fmaxf(x, parameters.first), parameters.second);
    case MathFunction::Neg: return -x;
    case MathFunction::Abs: return fabsf(x);
    case MathFunction::Square: return x * x;
  }
  return x;
}

// grad · f'(x), from the output y for exp and sqrt, from x otherwise (`saved`).
SGNN_HOST_DEVICE float math_gradient(MathFunction function, MathParameters parameters, float saved, float grad) {
  switch (function) {
    case MathFunction::Exp: return grad * saved;
    case MathFunction::Log: return grad / saved;
    case MathFunction::Sqrt: return grad / (2.0f * saved);
    case MathFunction::Pow:
      return parameters.first == 0.0f ? 0.0f : grad * parameters.first * powf(saved, parameters.first - 1.0f);
    case MathFunction::Clamp: return saved >= parameters.first && saved <= parameters.second ? grad : 0.0f;
    case MathFunction::Neg: return -grad;
    case MathFunction::Abs: return saved > 0.0f ? grad : saved < 0.0f ? -grad : 0.0f;
    case MathFunction::Square: return 2.0f * saved * grad;
  }
  return grad;
}

}  // namespace sgnn::ops
