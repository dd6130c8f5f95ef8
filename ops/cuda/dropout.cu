#include "core/cuda/launch.cuh"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

namespace {

// The same expression as the CPU backend (one float compare, one float
// multiply), hence the same result bit for bit. One thread per block of 4
// elements: one Philox call serves all four (a thread per element computed
// four and kept one), and aligned full blocks move as float4.
// The offset base (captured steps) is one 8-byte load per thread, L2-resident.
__global__ void dropout_kernel(const float* __restrict__ x, float p, float scale, RandomDraw draw,
                               float* __restrict__ y, int64_t n, bool vectorized) {
  const PhiloxStream stream = draw.resolve();
  const int64_t blocks = (n + 3) / 4;
  for (int64_t block = grid_stride_begin(); block < blocks; block += grid_stride_step()) {
    float u[4];
    stream.uniform4(static_cast<uint64_t>(block), u);
    const int64_t first = block * 4;
    if (vectorized && first + 3 < n) {
      const float4 in = *reinterpret_cast<const float4*>(x + first);
      *reinterpret_cast<float4*>(y + first) =
          make_float4(u[0] >= p ? in.x * scale : 0.0f, u[1] >= p ? in.y * scale : 0.0f,
                      u[2] >= p ? in.z * scale : 0.0f, u[3] >= p ? in.w * scale : 0.0f);
    } else {
      for (int k = 0; k < 4 && first + k < n; ++k) y[first + k] = u[k] >= p ? x[first + k] * scale : 0.0f;
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
  dropout_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<float>(), p, scale, draw,
                                                                               y.data<float>(), n, vectorized);
  SGNN_CUDA_CHECK_LAUNCH("dropout_kernel");
}

}  // namespace sgnn::ops
