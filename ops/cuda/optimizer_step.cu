#include "core/cuda/launch.cuh"
#include "ops/optimizer_step_math.hpp"

namespace sgnn::ops {

namespace {

__global__ void sgd_kernel(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ buffer,
                           SgdHyperparameters hyper, bool first_step, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    sgd_element(p[i], g[i], buffer != nullptr ? buffer + i : nullptr, hyper.learning_rate, hyper.momentum,
                hyper.weight_decay, hyper.nesterov, first_step);
  }
}

__global__ void adam_kernel(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                            float* __restrict__ v, AdamScalars scalars, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) adam_element(p[i], g[i], m[i], v[i], scalars);
}

}  // namespace

void sgd_update(Cuda, Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer,
                const SgdHyperparameters& hyper, bool first_step) {
  const int64_t n = parameter.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(parameter.device());
  const LaunchShape shape = elementwise_launch_shape(n, parameter.device());
  float* buffer = hyper.momentum > 0.0f ? momentum_buffer.data<float>() : nullptr;
  sgd_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(parameter.device())>>>(
      parameter.data<float>(), gradient.data<float>(), buffer, hyper, first_step, n);
  SGNN_CUDA_CHECK_LAUNCH("sgd_kernel");
}

void adam_update(Cuda, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& scalars) {
  const int64_t n = parameter.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(parameter.device());
  const LaunchShape shape = elementwise_launch_shape(n, parameter.device());
  adam_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(parameter.device())>>>(
      parameter.data<float>(), gradient.data<float>(), first_moment.data<float>(), second_moment.data<float>(),
      scalars, n);
  SGNN_CUDA_CHECK_LAUNCH("adam_kernel");
}

}  // namespace sgnn::ops
