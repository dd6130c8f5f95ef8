// What the sampling kernels share: the context's stream, CUB's temporary
// storage from the context's memory, and launch shapes.
#pragma once

#include <cub/cub.cuh>

#include <cstdint>

#include "core/cuda/launch.cuh"
#include "sampling/work_context.hpp"

namespace sgnn::sampling::cuda_detail {

inline cudaStream_t stream_of(const WorkContext& context) {
  return context.cuda_stream != nullptr ? static_cast<cudaStream_t>(context.cuda_stream) : cuda::stream(context.device);
}

// Runs a CUB device algorithm twice: once to size its temporary storage,
// which the context then provides (arena memory in the pipeline), once for real.
template <typename Call>
void run_cub(const WorkContext& context, const char* name, const Call& call) {
  std::size_t bytes = 0;
  SGNN_CUDA_CHECK(call(nullptr, bytes));
  const Tensor storage = context.allocate({static_cast<int64_t>(bytes / 8 + 1)}, DType::Int64);
  const cudaError_t status = call(storage.raw_data(), bytes);
  if (status != cudaSuccess) cuda::throw_cuda_error(status, name, __FILE__, __LINE__);
}

// A grid-stride launch with one warp per item.
inline LaunchShape warp_launch_shape(int64_t items, Device device) {
  return elementwise_launch_shape(items * 32, device, 256);
}

__device__ __forceinline__ int64_t warp_begin() { return grid_stride_begin() / 32; }
__device__ __forceinline__ int64_t warp_step() { return grid_stride_step() / 32; }
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }

// values[i] = i: the positions a sort carries along with its keys.
// (A template, so the kernel may be defined in every unit that includes this.)
template <typename Index>
__global__ void iota_kernel(Index* values, int64_t count) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) values[i] = static_cast<Index>(i);
}

// The bits CUB's radix sort needs for keys in [0, bound).
inline int key_bits(int64_t bound) {
  int bits = 1;
  while (bits < 63 && (int64_t{1} << bits) < bound) ++bits;
  return bits;
}

}  // namespace sgnn::sampling::cuda_detail
