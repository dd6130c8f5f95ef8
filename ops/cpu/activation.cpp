#include "ops/activation_math.hpp"
#include "ops/cpu/elementwise_map.hpp"

namespace sgnn::ops {

void activation_forward(Cpu, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  map_elements(x, y, [=](float value) { return activation_value(kind, parameter, value); });
}

void activation_backward(Cpu, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  map_elements(y, grad_y, grad_x,
               [=](float saved, float upstream) { return activation_gradient(kind, parameter, saved, upstream); });
}

}  // namespace sgnn::ops
