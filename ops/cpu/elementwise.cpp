#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

void binary_forward(Cpu, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t n = a.numel();
  const int64_t period = b.numel();
  if (n == 0) return;
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  float* z = out.data<float>();
  const int64_t rows = n / period;
  // Row by row over b's period: the inner loop has no modulo and vectorises.
#pragma omp parallel for if (n > 65536)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * period;
    float* zr = z + r * period;
    if (op == BinaryOp::Add) {
#pragma omp simd
      for (int64_t i = 0; i < period; ++i) zr[i] = xr[i] + y[i];
    } else {
#pragma omp simd
      for (int64_t i = 0; i < period; ++i) zr[i] = xr[i] * y[i];
    }
  }
}

void scale_forward(Cpu, const Tensor& x, float factor, Tensor& out) {
  const int64_t n = x.numel();
  const float* in = x.data<float>();
  float* result = out.data<float>();
#pragma omp parallel for simd if (n > 65536)
  for (int64_t i = 0; i < n; ++i) result[i] = in[i] * factor;
}

}  // namespace sgnn::ops
