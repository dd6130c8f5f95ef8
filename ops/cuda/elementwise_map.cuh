// Grid-stride maps over tensors of one floating dtype, read as float and
// stored rounded once to that dtype: the kernels of the activation and math
// families, whose formulas come as device functors (ops/*_math.hpp).
#pragma once

#include "core/cuda/launch.cuh"
#include "core/tensor.hpp"

namespace sgnn::ops {

namespace map_detail {

template <typename T, typename F>
__global__ void map_kernel(F f, const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) y[i] = store_as<T>(f(load_float(x[i])));
}

template <typename T, typename F>
__global__ void map_pair_kernel(F f, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    out[i] = store_as<T>(f(load_float(a[i]), load_float(b[i])));
  }
}

}  // namespace map_detail

// y[i] = f(x[i]); x and y of one dtype and numel, on one device.
template <typename F>
void launch_map(const Tensor& x, Tensor& y, F f) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    map_detail::map_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(f, x.data<T>(), y.data<T>(), n);
  });
  SGNN_CUDA_CHECK_LAUNCH("map_kernel");
}

// out[i] = f(a[i], b[i]); all three of one dtype and numel.
template <typename F>
void launch_map(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const int64_t n = a.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(a.device());
  const LaunchShape shape = elementwise_launch_shape(n, a.device());
  visit_floating(a.dtype(), [&](auto element) {
    using T = decltype(element);
    map_detail::map_pair_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(a.device())>>>(
        f, a.data<T>(), b.data<T>(), out.data<T>(), n);
  });
  SGNN_CUDA_CHECK_LAUNCH("map_pair_kernel");
}

}  // namespace sgnn::ops
