#include <algorithm>

#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

void dropout_apply(Cpu, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y) {
  const PhiloxStream stream = draw.resolve();
  const int64_t n = x.numel();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    // One Philox call per block of eight elements (16-bit draws), as on CUDA.
    const int64_t blocks = (n + 7) / 8;
#pragma omp parallel for if (n > 16384)
    for (int64_t block = 0; block < blocks; ++block) {
      float u[8];
      stream.uniform8(static_cast<uint64_t>(block), u);
      for (int64_t i = block * 8; i < std::min(n, block * 8 + 8); ++i) {
        out[i] = store_as<T>(u[i & 7] >= p ? load_float(in[i]) * scale : 0.0f);
      }
    }
  });
}

void dropout_at_positions(Cpu, const Tensor& x, const Tensor& positions, float p, float scale, RandomDraw draw,
                          Tensor& y) {
  const PhiloxStream stream = draw.resolve();
  const int64_t n = x.numel();
  const float* in = x.data<float>();
  const int64_t* at = positions.data<int64_t>();
  float* out = y.data<float>();
#pragma omp parallel for if (n > 16384)
  for (int64_t k = 0; k < n; ++k) {
    float u[8];
    stream.uniform8(static_cast<uint64_t>(at[k] >> 3), u);
    out[k] = u[at[k] & 7] >= p ? in[k] * scale : 0.0f;
  }
}

}  // namespace sgnn::ops
