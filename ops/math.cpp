#include "ops/math.hpp"

#include <cmath>

#include "core/autograd.hpp"
#include "ops/math_formulas.hpp"

namespace sgnn::ops {

namespace {

const char* function_name(MathFunction function) {
  switch (function) {
    case MathFunction::Exp: return "exp";
    case MathFunction::Log: return "log";
    case MathFunction::Sqrt: return "sqrt";
    case MathFunction::Pow: return "pow";
    case MathFunction::Clamp: return "clamp";
    case MathFunction::Neg: return "neg";
    case MathFunction::Abs: return "abs";
    case MathFunction::Square: return "square";
  }
  return "math";
}

Tensor apply(MathFunction function, MathParameters parameters, const Tensor& x) {
  const char* name = function_name(function);
  check_floating(x, name, "x");
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), math_forward, function, parameters, x, y);
  if (autograd::needs_recording({x})) {
    autograd::record(name, {x}, y,
                     [function, parameters, saved = (math_saves_output(function) ? y : x).detach()](
                         const Tensor& grad_y, const autograd::NeedsGrad&) {
                       Tensor grad_x = Tensor::empty_like(saved);
                       SGNN_DISPATCH(saved.device(), math_backward, function, parameters, saved, grad_y, grad_x);
                       return std::vector<Tensor>{grad_x};
                     });
  }
  return y;
}

}  // namespace

Tensor exp(const Tensor& x) { return apply(MathFunction::Exp, {}, x); }
Tensor log(const Tensor& x) { return apply(MathFunction::Log, {}, x); }
Tensor sqrt(const Tensor& x) { return apply(MathFunction::Sqrt, {}, x); }
Tensor neg(const Tensor& x) { return apply(MathFunction::Neg, {}, x); }
Tensor abs(const Tensor& x) { return apply(MathFunction::Abs, {}, x); }
Tensor square(const Tensor& x) { return apply(MathFunction::Square, {}, x); }

Tensor pow(const Tensor& x, float exponent) {
  SGNN_CHECK(std::isfinite(exponent), "pow: argument 'exponent' must be finite, got ", exponent);
  return apply(MathFunction::Pow, {exponent, 0.0f}, x);
}

Tensor clamp(const Tensor& x, float min, float max) {
  SGNN_CHECK(!std::isnan(min) && !std::isnan(max) && min <= max, "clamp: arguments 'min' and 'max' must satisfy min <= max "
             "and not be NaN, got min ", min, " and max ", max);
  return apply(MathFunction::Clamp, {min, max}, x);
}

}  // namespace sgnn::ops
