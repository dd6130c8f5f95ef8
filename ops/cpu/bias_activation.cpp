#include <vector>

#include "ops/bias_activation_backend.hpp"
#include "ops/bias_activation_math.hpp"

namespace sgnn::ops {

void bias_activation_forward(Cpu, FusedActivation activation, float parameter, const Tensor& x, const Tensor& bias,
                             Tensor& y) {
  const int64_t total = x.numel();
  const int64_t n = x.size(-1);
  if (total == 0) return;
  const float* in = x.data<float>();
  const float* b = bias.defined() ? bias.data<float>() : nullptr;
  float* out = y.data<float>();
#pragma omp parallel for if (total > 65536)
  for (int64_t i = 0; i < total; ++i) {
    out[i] = fused_value(activation, parameter, b != nullptr ? in[i] + b[i % n] : in[i]);
  }
}

void bias_activation_backward(Cpu, FusedActivation activation, float parameter, const Tensor& y,
                              const Tensor& grad_y, Tensor& grad_x, Tensor& grad_bias) {
  const int64_t total = y.numel();
  const int64_t n = y.size(-1);
  const int64_t rows = n == 0 ? 0 : total / n;
  const float* out = y.data<float>();
  const float* upstream = grad_y.data<float>();
  float* result = grad_x.data<float>();
#pragma omp parallel for if (total > 65536)
  for (int64_t i = 0; i < total; ++i) result[i] = fused_gradient(activation, parameter, out[i], upstream[i]);
  if (!grad_bias.defined()) return;
  // Column sums in double, row by row (contiguous reads).
  std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) sums[static_cast<std::size_t>(c)] += static_cast<double>(result[r * n + c]);
  }
  float* bias_out = grad_bias.data<float>();
  for (int64_t c = 0; c < n; ++c) bias_out[c] = static_cast<float>(sums[static_cast<std::size_t>(c)]);
}

}  // namespace sgnn::ops
