#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

void dropout_apply(Cpu, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y) {
  const PhiloxStream stream = draw.resolve();
  const int64_t n = x.numel();
  const float* in = x.data<float>();
  float* out = y.data<float>();
#pragma omp parallel for if (n > 16384)
  for (int64_t i = 0; i < n; ++i) {
    out[i] = stream.uniform(static_cast<uint64_t>(i)) >= p ? in[i] * scale : 0.0f;
  }
}

}  // namespace sgnn::ops
