#include "core/cuda/launch.cuh"
#include "ops/activation_math.hpp"

namespace sgnn::ops {

namespace {

template <typename T>
__global__ void activation_forward_kernel(Activation kind, float parameter, const T* __restrict__ x,
                                          T* __restrict__ y, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    y[i] = store_as<T>(activation_value(kind, parameter, load_float(x[i])));
  }
}

template <typename T>
__global__ void activation_backward_kernel(Activation kind, float parameter, const T* __restrict__ y,
                                           const T* __restrict__ grad_y, T* __restrict__ grad_x, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    grad_x[i] = store_as<T>(activation_gradient(kind, parameter, load_float(y[i]), load_float(grad_y[i])));
  }
}

}  // namespace

void activation_forward(Cuda, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    activation_forward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
        kind, parameter, x.data<T>(), y.data<T>(), n);
  });
  SGNN_CUDA_CHECK_LAUNCH("activation_forward_kernel");
}

void activation_backward(Cuda, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  const int64_t n = y.numel();
  if (n == 0) return;
  const LaunchShape shape = elementwise_launch_shape(n, y.device());
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    activation_backward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(y.device())>>>(
        kind, parameter, y.data<T>(), grad_y.data<T>(), grad_x.data<T>(), n);
  });
  SGNN_CUDA_CHECK_LAUNCH("activation_backward_kernel");
}

}  // namespace sgnn::ops
