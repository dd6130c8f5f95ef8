#include "ops/activation_math.hpp"

namespace sgnn::ops {

void activation_forward(Cpu, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  const float* in = x.data<float>();
  float* out = y.data<float>();
  const int64_t n = x.numel();
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) out[i] = activation_value(kind, parameter, in[i]);
}

void activation_backward(Cpu, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  const float* saved = y.data<float>();
  const float* upstream = grad_y.data<float>();
  float* out = grad_x.data<float>();
  const int64_t n = y.numel();
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) out[i] = activation_gradient(kind, parameter, saved[i], upstream[i]);
}

}  // namespace sgnn::ops
