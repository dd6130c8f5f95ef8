#include "core/cuda/launch.cuh"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

namespace {

// The same expression as the CPU backend (one float compare, one float
// multiply, one rounding for bfloat16), hence the same result bit for bit.
// One thread per block of 4 elements: one Philox call serves all four (a
// thread per element computed four and kept one), and aligned full blocks
// move as one vector (float4, or four bfloat16 in 8 bytes).
// The offset base (captured steps) is one 8-byte load per thread, L2-resident.
template <typename T>
struct Quad;
template <>
struct Quad<float> {
  using type = float4;
};
template <>
struct Quad<bfloat16> {
  using type = uint2;  // 4 × 16 bits
};

template <typename T>
__global__ void dropout_kernel(const T* __restrict__ x, float p, float scale, RandomDraw draw, T* __restrict__ y,
                               int64_t n, bool vectorized) {
  using Vector = typename Quad<T>::type;
  const PhiloxStream stream = draw.resolve();
  const int64_t blocks = (n + 3) / 4;
  for (int64_t block = grid_stride_begin(); block < blocks; block += grid_stride_step()) {
    float u[4];
    stream.uniform4(static_cast<uint64_t>(block), u);
    const int64_t first = block * 4;
    if (vectorized && first + 3 < n) {
      alignas(Vector) T in[4];
      *reinterpret_cast<Vector*>(in) = *reinterpret_cast<const Vector*>(x + first);
      alignas(Vector) T out[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) out[k] = store_as<T>(u[k] >= p ? load_float(in[k]) * scale : 0.0f);
      *reinterpret_cast<Vector*>(y + first) = *reinterpret_cast<const Vector*>(out);
    } else {
      for (int k = 0; k < 4 && first + k < n; ++k) {
        y[first + k] = store_as<T>(u[k] >= p ? load_float(x[first + k]) * scale : 0.0f);
      }
    }
  }
}

}  // namespace

void dropout_apply(Cuda, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape((n + 3) / 4, x.device());
  const bool vectorized = aligned16(x.raw_data()) && aligned16(y.raw_data());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    dropout_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<T>(), p, scale, draw,
                                                                                 y.data<T>(), n, vectorized);
  });
  SGNN_CUDA_CHECK_LAUNCH("dropout_kernel");
}

}  // namespace sgnn::ops
