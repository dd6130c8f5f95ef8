#include "core/cuda/launch.cuh"
#include "ops/activation_math.hpp"

namespace sgnn::ops {

namespace {

__global__ void activation_forward_kernel(Activation kind, float parameter, const float* __restrict__ x,
                                          float* __restrict__ y, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) y[i] = activation_value(kind, parameter, x[i]);
}

__global__ void activation_backward_kernel(Activation kind, float parameter, const float* __restrict__ y,
                                           const float* __restrict__ grad_y, float* __restrict__ grad_x, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    grad_x[i] = activation_gradient(kind, parameter, y[i], grad_y[i]);
  }
}

}  // namespace

void activation_forward(Cuda, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  activation_forward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
      kind, parameter, x.data<float>(), y.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("activation_forward_kernel");
}

void activation_backward(Cuda, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  const int64_t n = y.numel();
  if (n == 0) return;
  const LaunchShape shape = elementwise_launch_shape(n, y.device());
  activation_backward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(y.device())>>>(
      kind, parameter, y.data<float>(), grad_y.data<float>(), grad_x.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("activation_backward_kernel");
}

}  // namespace sgnn::ops
