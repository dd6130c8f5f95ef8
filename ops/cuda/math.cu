#include "ops/cuda/elementwise_map.cuh"
#include "ops/math_formulas.hpp"

namespace sgnn::ops {

void math_forward(Cuda, MathFunction function, MathParameters parameters, const Tensor& x, Tensor& y) {
  launch_map(x, y,
               [=] __device__(float value) { return math_value(function, parameters, value); });
}

void math_backward(Cuda, MathFunction function, MathParameters parameters, const Tensor& saved,
                   const Tensor& grad_y, Tensor& grad_x) {
  launch_map(saved, grad_y, grad_x, [=] __device__(float kept, float upstream) {
    return math_gradient(function, parameters, kept, upstream);
  });
}

}  // namespace sgnn::ops
