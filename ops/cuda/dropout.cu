#include "core/cuda/launch.cuh"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

namespace {

// The same expression as the CPU backend (one float compare, one float
// multiply, one rounding for bfloat16), hence the same result bit for bit.
// One Philox call serves a block of 4 elements, as on the CPU. A thread takes
// 16 bytes: one block of floats (a float4), two blocks of bfloat16s. With a
// block per thread, bfloat16 moved 8 bytes per access and GAT's dropouts on
// the Reddit-scale preset took 10.0 ms in ncu over two epochs (9.1 ms at 16
// bytes); two blocks of floats per thread made float slower (12.5 -> 14.5 ms).
// The offset base (captured steps) is one 8-byte load per thread, L2-resident.
template <typename T>
__global__ void dropout_kernel(const T* __restrict__ x, float p, float scale, RandomDraw draw, T* __restrict__ y,
                               int64_t n, bool vectorized) {
  constexpr int kElements = 16 / static_cast<int>(sizeof(T));
  constexpr int kBlocks = kElements / 4;
  const PhiloxStream stream = draw.resolve();
  const int64_t groups = (n + kElements - 1) / kElements;
  for (int64_t group = grid_stride_begin(); group < groups; group += grid_stride_step()) {
    float u[kBlocks][4];
#pragma unroll
    for (int b = 0; b < kBlocks; ++b) stream.uniform4(static_cast<uint64_t>(kBlocks * group + b), u[b]);
    const int64_t first = group * kElements;
    if (vectorized && first + kElements - 1 < n) {
      uint4 word = *reinterpret_cast<const uint4*>(x + first);
      T* in = reinterpret_cast<T*>(&word);
#pragma unroll
      for (int k = 0; k < kElements; ++k) {
        in[k] = store_as<T>(u[k >> 2][k & 3] >= p ? load_float(in[k]) * scale : 0.0f);
      }
      *reinterpret_cast<uint4*>(y + first) = word;
    } else {
      for (int k = 0; k < kElements && first + k < n; ++k) {
        y[first + k] = store_as<T>(u[k >> 2][k & 3] >= p ? load_float(x[first + k]) * scale : 0.0f);
      }
    }
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

}  // namespace sgnn::ops
