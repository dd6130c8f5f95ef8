#include "core/cuda/launch.cuh"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

namespace {

// The same expression as the CPU backend (one float compare, one float
// multiply), hence the same result bit for bit.
// The offset base (captured steps) is one 8-byte load per thread, L2-resident.
__global__ void dropout_kernel(const float* __restrict__ x, float p, float scale, RandomDraw draw,
                               float* __restrict__ y, int64_t n) {
  const PhiloxStream stream = draw.resolve();
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    y[i] = stream.uniform(static_cast<uint64_t>(i)) >= p ? x[i] * scale : 0.0f;
  }
}

}  // namespace

void dropout_apply(Cuda, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  dropout_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<float>(), p, scale, draw,
                                                                               y.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("dropout_kernel");
}

}  // namespace sgnn::ops
