#include "ops/cpu/elementwise_map.hpp"
#include "ops/math_formulas.hpp"

namespace sgnn::ops {

void math_forward(Cpu, MathFunction function, MathParameters parameters, const Tensor& x, Tensor& y) {
  map_elements(x, y, [=](float value) { return math_value(function, parameters, value); });
}

void math_backward(Cpu, MathFunction function, MathParameters parameters, const Tensor& saved,
                   const Tensor& grad_y, Tensor& grad_x) {
  map_elements(saved, grad_y, grad_x,
               [=](float kept, float upstream) { return math_gradient(function, parameters, kept, upstream); });
}

}  // namespace sgnn::ops
