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
    // One Philox call per block of four elements, as on CUDA.
    const int64_t blocks = (n + 3) / 4;
#pragma omp parallel for if (n > 16384)
    for (int64_t block = 0; block < blocks; ++block) {
      float u[4];
      stream.uniform4(static_cast<uint64_t>(block), u);
      for (int64_t i = block * 4; i < std::min(n, block * 4 + 4); ++i) {
        out[i] = store_as<T>(u[i & 3] >= p ? load_float(in[i]) * scale : 0.0f);
      }
    }
  });
}

}  // namespace sgnn::ops
