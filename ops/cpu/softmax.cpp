#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/softmax_backend.hpp"

namespace sgnn::ops {

void softmax_forward(Cpu, bool log, const Tensor& x, int64_t cols, Tensor& y) {
  if (cols == 0) return;
  const int64_t rows = x.numel() / cols;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
#pragma omp parallel for if (rows * cols > 16384)
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * cols;
      T* result = out + r * cols;
      float maximum = -std::numeric_limits<float>::infinity();
      for (int64_t c = 0; c < cols; ++c) maximum = std::max(maximum, load_float(row[c]));
      // An all −inf row has no finite maximum; shifting by 0 keeps exp() of it 0 (and NaN
      // from 0/0 follows, as in PyTorch).
      const float shift = std::isfinite(maximum) ? maximum : 0.0f;
      double total = 0.0;
      for (int64_t c = 0; c < cols; ++c) total += static_cast<double>(std::exp(load_float(row[c]) - shift));
      if (log) {
        const float log_total = static_cast<float>(std::log(total));
        for (int64_t c = 0; c < cols; ++c) result[c] = store_as<T>(load_float(row[c]) - shift - log_total);
      } else {
        const float inverse = static_cast<float>(1.0 / total);
        for (int64_t c = 0; c < cols; ++c) result[c] = store_as<T>(std::exp(load_float(row[c]) - shift) * inverse);
      }
    }
  });
}

void softmax_backward(Cpu, bool log, const Tensor& y, const Tensor& grad_y, int64_t cols, Tensor& grad_x) {
  if (cols == 0) return;
  const int64_t rows = y.numel() / cols;
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* out = y.data<T>();
    const T* upstream = grad_y.data<T>();
    T* result = grad_x.data<T>();
#pragma omp parallel for if (rows * cols > 16384)
    for (int64_t r = 0; r < rows; ++r) {
      const T* yr = out + r * cols;
      const T* gr = upstream + r * cols;
      T* dx = result + r * cols;
      double dot = 0.0;
      for (int64_t c = 0; c < cols; ++c) {
        const float g = load_float(gr[c]);
        dot += log ? static_cast<double>(g) : static_cast<double>(g * load_float(yr[c]));
      }
      const auto total = static_cast<float>(dot);
      for (int64_t c = 0; c < cols; ++c) {
        const float g = load_float(gr[c]);
        const float value = load_float(yr[c]);
        dx[c] = store_as<T>(log ? g - std::exp(value) * total : value * (g - total));
      }
    }
  });
}

}  // namespace sgnn::ops
