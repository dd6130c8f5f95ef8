#include <vector>

#include "ops/bias_activation_backend.hpp"
#include "ops/bias_activation_math.hpp"

namespace sgnn::ops {

void bias_activation_forward(Cpu, FusedActivation activation, float parameter, const Tensor& x, const Tensor& bias,
                             Tensor& y) {
  const int64_t total = x.numel();
  const int64_t n = x.size(-1);
  if (total == 0) return;
  visit_floating(x.dtype(), [&](auto x_element) {
    visit_floating(bias.defined() ? bias.dtype() : DType::Float32, [&](auto bias_element) {
      using T = decltype(x_element);
      using B = decltype(bias_element);
      const T* in = x.data<T>();
      const B* b = bias.defined() ? bias.data<B>() : nullptr;
      T* out = y.data<T>();
#pragma omp parallel for if (total > 65536)
      for (int64_t i = 0; i < total; ++i) {
        const float z = b != nullptr ? load_float(in[i]) + load_float(b[i % n]) : load_float(in[i]);
        out[i] = store_as<T>(fused_value(activation, parameter, z));
      }
    });
  });
}

void bias_activation_backward(Cpu, FusedActivation activation, float parameter, const Tensor& y,
                              const Tensor& grad_y, Tensor& grad_x, Tensor& grad_bias) {
  const int64_t total = y.numel();
  const int64_t n = y.size(-1);
  const int64_t rows = n == 0 ? 0 : total / n;
  // The unrounded gradients (float), as the CUDA kernel sums them before it stores grad_x.
  std::vector<float> gradient(grad_bias.defined() ? static_cast<std::size_t>(total) : 0);
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* out = y.data<T>();
    const T* upstream = grad_y.data<T>();
    T* result = grad_x.data<T>();
    float* unrounded = gradient.empty() ? nullptr : gradient.data();
#pragma omp parallel for if (total > 65536)
    for (int64_t i = 0; i < total; ++i) {
      const float g = fused_gradient(activation, parameter, load_float(out[i]), load_float(upstream[i]));
      result[i] = store_as<T>(g);
      if (unrounded != nullptr) unrounded[i] = g;
    }
  });
  if (!grad_bias.defined()) return;
  // Column sums in double, row by row (contiguous reads).
  std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      sums[static_cast<std::size_t>(c)] += static_cast<double>(gradient[static_cast<std::size_t>(r * n + c)]);
    }
  }
  visit_floating(grad_bias.dtype(), [&](auto element) {
    using B = decltype(element);
    B* bias_out = grad_bias.data<B>();
    for (int64_t c = 0; c < n; ++c) bias_out[c] = store_as<B>(static_cast<float>(sums[static_cast<std::size_t>(c)]));
  });
}

}  // namespace sgnn::ops
