#include "core/cuda/launch.cuh"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

namespace {

// The same expression as the CPU backend (one float compare, one float
// multiply, one rounding for bfloat16), hence the same result bit for bit.
// One Philox call serves a block of 8 elements (16-bit draws), as on the CPU.
// A thread takes 16 bytes: half a block of floats (a float4), a block of
// bfloat16s. With 24-bit draws, a Philox call per 4 elements, bfloat16 took
// two calls a thread and GAT's dropouts on the Reddit-scale preset 9.05 ms in
// ncu over two epochs against float's 12.44 (2.0 against 2.9 TB/s): bound by
// the calls, not the bytes. Two float4s a thread with two calls made float
// slower (12.5 -> 14.5 ms). So two float threads compute each block's call:
// a float thread taking a whole block with one call (its two float4s 32 bytes
// apart per lane) ran 0.184 -> 0.206 ms on 232965 x 256 in bench_dense
// (docs/kernels.md); the repeated call costs less than the strided
// accesses. The offset base (captured steps) is one 8-byte load per thread,
// L2-resident.
template <typename T>
__global__ void dropout_kernel(const T* __restrict__ x, float p, float scale, RandomDraw draw, T* __restrict__ y,
                               int64_t n, bool vectorized) {
  constexpr int kElements = 16 / static_cast<int>(sizeof(T));
  static_assert(kElements == 4 || kElements == 8, "a thread covers half a draw block or a whole one");
  const PhiloxStream stream = draw.resolve();
  const int64_t groups = (n + kElements - 1) / kElements;
  for (int64_t group = grid_stride_begin(); group < groups; group += grid_stride_step()) {
    const int64_t first = group * kElements;
    float u[kElements];  // this thread's draws: uniform8's block, or the half of it that holds first .. first + 3
    if constexpr (kElements == 8) {
      stream.uniform8(static_cast<uint64_t>(first >> 3), u);
    } else {
      float block[8];
      stream.uniform8(static_cast<uint64_t>(first >> 3), block);
      const bool upper_half = (first & 7) != 0;
#pragma unroll
      for (int k = 0; k < kElements; ++k) u[k] = upper_half ? block[k + 4] : block[k];
    }
    if (vectorized && first + kElements - 1 < n) {
      uint4 word = *reinterpret_cast<const uint4*>(x + first);
      T* in = reinterpret_cast<T*>(&word);
#pragma unroll
      for (int k = 0; k < kElements; ++k) in[k] = store_as<T>(u[k] >= p ? load_float(in[k]) * scale : 0.0f);
      *reinterpret_cast<uint4*>(y + first) = word;
    } else {
      for (int k = 0; k < kElements && first + k < n; ++k) {
        y[first + k] = store_as<T>(u[k] >= p ? load_float(x[first + k]) * scale : 0.0f);
      }
    }
  }
}

// One Philox call per entry: an entry's element index is arbitrary, so
// neighbouring entries rarely share a draw block.
__global__ void dropout_at_positions_kernel(const float* __restrict__ x, const int64_t* __restrict__ positions,
                                            float p, float scale, RandomDraw draw, float* __restrict__ y, int64_t n) {
  const PhiloxStream stream = draw.resolve();
  for (int64_t k = grid_stride_begin(); k < n; k += grid_stride_step()) {
    const int64_t at = positions[k];
    float u[8];
    stream.uniform8(static_cast<uint64_t>(at >> 3), u);
    y[k] = u[at & 7] >= p ? x[k] * scale : 0.0f;
  }
}

}  // namespace

void dropout_apply(Cuda, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const bool vectorized = aligned16(x.raw_data()) && aligned16(y.raw_data());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const int64_t elements = 16 / static_cast<int64_t>(sizeof(T));  // per thread
    const LaunchShape shape = elementwise_launch_shape((n + elements - 1) / elements, x.device());
    dropout_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<T>(), p, scale, draw,
                                                                                 y.data<T>(), n, vectorized);
  });
  SGNN_CUDA_CHECK_LAUNCH("dropout_kernel");
}

void dropout_at_positions(Cuda, const Tensor& x, const Tensor& positions, float p, float scale, RandomDraw draw,
                          Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  dropout_at_positions_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
      x.data<float>(), positions.data<int64_t>(), p, scale, draw, y.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("dropout_at_positions_kernel");
}

}  // namespace sgnn::ops
