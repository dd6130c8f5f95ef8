// Launch-shape helpers shared by every CUDA kernel of the library.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/cuda_runtime.hpp"

namespace sgnn {

struct LaunchShape {
  unsigned blocks = 1;
  unsigned threads = 256;
};

// A grid-stride launch for `count` independent elements: enough blocks to
// fill every multiprocessor a few times, never more than the x-dimension
// limit, so any element count works.
inline LaunchShape elementwise_launch_shape(int64_t count, Device device, unsigned threads = 256) {
  const int64_t wanted = (count + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 8;
  return {static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, cap)), threads};
}

// Whether 128-bit loads and stores may be used at this address.
inline bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

__device__ __forceinline__ int64_t grid_stride_begin() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_stride_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace sgnn
