#include "core/cuda/launch.cuh"
#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

namespace {

// b repeats with period `period` (a divisor of n); period == n is the common
// equal-shape case and skips the modulo. Any mix of float and bfloat16
// operands: loaded as float, the result rounded once to Out.
template <BinaryOp Op, typename A, typename B, typename Out>
__global__ void binary_kernel(const A* a, const B* __restrict__ b, Out* out, int64_t n, int64_t period) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    const float other = load_float(b[period == n ? i : i % period]);
    const float mine = load_float(a[i]);
    out[i] = store_as<Out>(Op == BinaryOp::Add ? mine + other : mine * other);
  }
}

template <typename T>
__global__ void scale_kernel(const T* __restrict__ x, float factor, T* __restrict__ out, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) out[i] = store_as<T>(load_float(x[i]) * factor);
}

}  // namespace

void binary_forward(Cuda, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t n = a.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(a.device());
  const LaunchShape shape = elementwise_launch_shape(n, a.device());
  const cudaStream_t stream = cuda::stream(a.device());
  // `out` may alias `a` (documented), so neither is __restrict__.
  visit_floating(a.dtype(), [&](auto a_element) {
    visit_floating(b.dtype(), [&](auto b_element) {
      visit_floating(out.dtype(), [&](auto out_element) {
        using A = decltype(a_element);
        using B = decltype(b_element);
        using Out = decltype(out_element);
        if (op == BinaryOp::Add) {
          binary_kernel<BinaryOp::Add><<<shape.blocks, shape.threads, 0, stream>>>(
              a.data<A>(), b.data<B>(), out.data<Out>(), n, b.numel());
        } else {
          binary_kernel<BinaryOp::Mul><<<shape.blocks, shape.threads, 0, stream>>>(
              a.data<A>(), b.data<B>(), out.data<Out>(), n, b.numel());
        }
      });
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("binary_kernel");
}

void scale_forward(Cuda, const Tensor& x, float factor, Tensor& out) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    scale_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<T>(), factor, out.data<T>(), n);
  });
  SGNN_CUDA_CHECK_LAUNCH("scale_kernel");
}

}  // namespace sgnn::ops
