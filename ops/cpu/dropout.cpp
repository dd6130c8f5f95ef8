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

}  // namespace sgnn::ops
