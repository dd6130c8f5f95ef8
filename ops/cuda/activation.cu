#include "ops/activation_math.hpp"
#include "ops/cuda/elementwise_map.cuh"

namespace sgnn::ops {

void activation_forward(Cuda, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  launch_map(x, y,
               [=] __device__(float value) { return activation_value(kind, parameter, value); });
}

void activation_backward(Cuda, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  launch_map(y, grad_y, grad_x, [=] __device__(float saved, float upstream) {
    return activation_gradient(kind, parameter, saved, upstream);
  });
}

}  // namespace sgnn::ops
