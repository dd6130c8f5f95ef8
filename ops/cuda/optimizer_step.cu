#include <algorithm>

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
                            float* __restrict__ v, AdamScalars given, const AdamBiasCorrection* deferred,
                            int64_t n) {
  const AdamScalars scalars = resolve_adam_scalars(given, deferred);
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) adam_element(p[i], g[i], m[i], v[i], scalars);
}

// A fixed batch passed by value: 32 x 88 bytes stays under the classic 4 KiB
// kernel-parameter limit. __grid_constant__ lets blocks index it in place.
constexpr int kAdamTensorsPerLaunch = 32;
struct AdamBatch {
  AdamTensorArguments tensors[kAdamTensorsPerLaunch];
};
static_assert(sizeof(AdamBatch) <= 4000, "kernel parameters must fit the 4 KiB limit");

// blockIdx.y picks the tensor; x is a grid-stride loop over its elements.
__global__ void adam_many_kernel(const __grid_constant__ AdamBatch batch) {
  const AdamTensorArguments& t = batch.tensors[blockIdx.y];
  const AdamScalars scalars = resolve_adam_scalars(t.scalars, t.deferred);
  for (int64_t i = grid_stride_begin(); i < t.count; i += grid_stride_step()) {
    adam_element(t.parameter[i], t.gradient[i], t.first_moment[i], t.second_moment[i], scalars);
    if (t.compute_copy != nullptr) t.compute_copy[i] = bfloat16(t.parameter[i]);
  }
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
                 const AdamScalars& scalars, const AdamBiasCorrection* deferred) {
  const int64_t n = parameter.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(parameter.device());
  const LaunchShape shape = elementwise_launch_shape(n, parameter.device());
  adam_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(parameter.device())>>>(
      parameter.data<float>(), gradient.data<float>(), first_moment.data<float>(), second_moment.data<float>(),
      scalars, deferred, n);
  SGNN_CUDA_CHECK_LAUNCH("adam_kernel");
}

void adam_update_many(Cuda, Device device, const std::vector<AdamTensorArguments>& tensors) {
  cuda::DeviceGuard guard(device);
  for (std::size_t first = 0; first < tensors.size(); first += kAdamTensorsPerLaunch) {
    const std::size_t count = std::min<std::size_t>(kAdamTensorsPerLaunch, tensors.size() - first);
    AdamBatch batch{};
    int64_t largest = 0;
    for (std::size_t k = 0; k < count; ++k) {
      batch.tensors[k] = tensors[first + k];
      largest = std::max(largest, tensors[first + k].count);
    }
    if (largest == 0) continue;  // only empty tensors
    const LaunchShape shape = elementwise_launch_shape(largest, device);
    const dim3 grid(shape.blocks, static_cast<unsigned>(count));
    adam_many_kernel<<<grid, shape.threads, 0, cuda::stream(device)>>>(batch);
    SGNN_CUDA_CHECK_LAUNCH("adam_many_kernel");
  }
}

}  // namespace sgnn::ops
