#include "core/cuda/core_kernels.hpp"

#include "core/cuda/launch.cuh"
#include "core/cuda_runtime.hpp"

namespace sgnn::detail {

namespace {

template <typename T>
__global__ void fill_kernel(T* data, int64_t count, T value) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) data[i] = value;
}

template <typename T>
__global__ void add_kernel(const T* a, const T* b, T* out, int64_t count) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    out[i] = store_as<T>(load_float(a[i]) + load_float(b[i]));
  }
}

}  // namespace

void fill_cuda(void* data, int64_t count, DType dtype, double value, Device device) {
  if (count == 0) return;
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(count, device);
  const cudaStream_t stream = cuda::stream(device);
  switch (dtype) {
    case DType::Float32:
      fill_kernel<<<shape.blocks, shape.threads, 0, stream>>>(static_cast<float*>(data), count, static_cast<float>(value));
      break;
    case DType::Int32:
      fill_kernel<<<shape.blocks, shape.threads, 0, stream>>>(static_cast<int32_t*>(data), count, static_cast<int32_t>(value));
      break;
    case DType::Int64:
      fill_kernel<<<shape.blocks, shape.threads, 0, stream>>>(static_cast<int64_t*>(data), count, static_cast<int64_t>(value));
      break;
    case DType::BFloat16:
      fill_kernel<<<shape.blocks, shape.threads, 0, stream>>>(static_cast<bfloat16*>(data), count,
                                                              bfloat16(static_cast<float>(value)));
      break;
  }
  SGNN_CUDA_CHECK_LAUNCH("fill_kernel");
}

void add_cuda(const void* a, const void* b, void* out, DType dtype, int64_t count, Device device) {
  if (count == 0) return;
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(count, device);
  visit_floating(dtype, [&](auto element) {
    using T = decltype(element);
    add_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), count);
  });
  SGNN_CUDA_CHECK_LAUNCH("add_kernel");
}

}  // namespace sgnn::detail
