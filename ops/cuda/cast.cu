// Float32 <-> bfloat16 conversion on CUDA: one grid-stride pass, the same
// rounding as the CPU backend (core/bfloat16.hpp), hence the same bits.
#include "core/cuda/launch.cuh"
#include "ops/cast_backend.hpp"

namespace sgnn::ops {

namespace {

template <typename In, typename Out>
__global__ void cast_kernel(const In* __restrict__ x, Out* __restrict__ out, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) out[i] = store_as<Out>(load_float(x[i]));
}

}  // namespace

void cast_copy(Cuda, const Tensor& x, Tensor& out) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  visit_floating(x.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      cast_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(x.data<In>(), out.data<Out>(), n);
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("cast_kernel");
}

}  // namespace sgnn::ops
