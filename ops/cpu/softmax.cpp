#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/softmax_backend.hpp"

namespace sgnn::ops {

void softmax_forward(Cpu, bool log, const Tensor& x, int64_t cols, Tensor& y) {
  if (cols == 0) return;
  const int64_t rows = x.numel() / cols;
  const float* in = x.data<float>();
  float* out = y.data<float>();
#pragma omp parallel for if (rows * cols > 16384)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    float* result = out + r * cols;
    float maximum = -std::numeric_limits<float>::infinity();
    for (int64_t c = 0; c < cols; ++c) maximum = std::max(maximum, row[c]);
    // An all −inf row has no finite maximum; shifting by 0 keeps exp() of it 0 (and NaN from 0/0 follows, as in PyTorch).
    const float shift = std::isfinite(maximum) ? maximum : 0.0f;
    double total = 0.0;
    for (int64_t c = 0; c < cols; ++c) total += static_cast<double>(std::exp(row[c] - shift));
    if (log) {
      const float log_total = static_cast<float>(std::log(total));
      for (int64_t c = 0; c < cols; ++c) result[c] = row[c] - shift - log_total;
    } else {
      const float inverse = static_cast<float>(1.0 / total);
      for (int64_t c = 0; c < cols; ++c) result[c] = std::exp(row[c] - shift) * inverse;
    }
  }
}

void softmax_backward(Cpu, bool log, const Tensor& y, const Tensor& grad_y, int64_t cols, Tensor& grad_x) {
  if (cols == 0) return;
  const int64_t rows = y.numel() / cols;
  const float* out = y.data<float>();
  const float* upstream = grad_y.data<float>();
  float* result = grad_x.data<float>();
#pragma omp parallel for if (rows * cols > 16384)
  for (int64_t r = 0; r < rows; ++r) {
    const float* yr = out + r * cols;
    const float* gr = upstream + r * cols;
    float* dx = result + r * cols;
    double dot = 0.0;
    for (int64_t c = 0; c < cols; ++c) dot += log ? static_cast<double>(gr[c]) : static_cast<double>(gr[c] * yr[c]);
    const auto total = static_cast<float>(dot);
    for (int64_t c = 0; c < cols; ++c) dx[c] = log ? gr[c] - std::exp(yr[c]) * total : yr[c] * (gr[c] - total);
  }
}

}  // namespace sgnn::ops
