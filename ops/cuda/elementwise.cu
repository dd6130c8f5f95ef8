#include "core/cuda/launch.cuh"
#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

namespace {

// b repeats with period `period` (a divisor of n); period == n is the common
// equal-shape case and skips the modulo.
template <BinaryOp Op>
__global__ void binary_kernel(const float* __restrict__ a, const float* __restrict__ b, float* out, int64_t n,
                              int64_t period) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    const float other = b[period == n ? i : i % period];
    out[i] = Op == BinaryOp::Add ? a[i] + other : a[i] * other;
  }
}

__global__ void scale_kernel(const float* __restrict__ x, float factor, float* __restrict__ out, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) out[i] = x[i] * factor;
}

}  // namespace

void binary_forward(Cuda, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t n = a.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(a.device());
  const LaunchShape shape = elementwise_launch_shape(n, a.device());
  const cudaStream_t stream = cuda::stream(a.device());
  // `out` may alias `a` (documented), so it is not __restrict__.
  if (op == BinaryOp::Add) {
    binary_kernel<BinaryOp::Add><<<shape.blocks, shape.threads, 0, stream>>>(a.data<float>(), b.data<float>(),
                                                                             out.data<float>(), n, b.numel());
  } else {
    binary_kernel<BinaryOp::Mul><<<shape.blocks, shape.threads, 0, stream>>>(a.data<float>(), b.data<float>(),
                                                                             out.data<float>(), n, b.numel());
  }
  SGNN_CUDA_CHECK_LAUNCH("binary_kernel");
}

void scale_forward(Cuda, const Tensor& x, float factor, Tensor& out) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  scale_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<float>(), factor,
                                                                             out.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("scale_kernel");
}

}  // namespace sgnn::ops
