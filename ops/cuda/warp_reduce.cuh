// Warp- and block-level reductions with shuffles, and the warp-per-row launch
// shape, shared by the row kernels of the dense CUDA backends (softmax,
// losses, reductions).
#pragma once

#include <algorithm>

#include "core/bfloat16.hpp"
#include "core/cuda/launch.cuh"

namespace sgnn::ops {

constexpr unsigned kFullWarp = 0xffffffffu;

// Every lane returns the sum (max) over its aligned group of kLanes lanes
// (a power of two up to 32; 32: the whole warp). All 32 lanes must call it.
template <int kLanes = 32>
__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullWarp, value, offset);
  return value;
}
template <int kLanes = 32>
__device__ __forceinline__ float warp_max(float value) {
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) {
    value = fmaxf(value, __shfl_xor_sync(kFullWarp, value, offset));
  }
  return value;
}

// Sum over a 1-D block of up to 1024 threads (blockDim.x a multiple of 32);
// the result is valid in thread 0. Every thread of the block must call it.
__device__ __forceinline__ float block_sum(float value) {
  __shared__ float partial[32];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  value = warp_sum(value);
  __syncthreads();  // `partial` may still be read by a previous call
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < (blockDim.x >> 5) ? partial[lane] : 0.0f;
    value = warp_sum(value);
  }
  return value;
}

// The shift that keeps exp() of a row in range: its maximum, or 0 for a row
// with no finite maximum (all −inf), as the CPU backends do. Over a group
// of kLanes lanes (`lane` is the lane within the group). T: float or
// bfloat16 (read as float).
template <int kLanes = 32, typename T>
__device__ __forceinline__ float warp_row_shift(const T* row, int64_t cols, unsigned lane) {
  float maximum = -INFINITY;
  for (int64_t c = lane; c < cols; c += kLanes) maximum = fmaxf(maximum, load_float(row[c]));
  maximum = warp_max<kLanes>(maximum);
  return isfinite(maximum) ? maximum : 0.0f;
}

// Σ_c exp(row[c] − shift) over a group of kLanes lanes.
template <int kLanes = 32, typename T>
__device__ __forceinline__ float warp_row_exp_sum(const T* row, int64_t cols, float shift, unsigned lane) {
  float total = 0.0f;
  for (int64_t c = lane; c < cols; c += kLanes) total += expf(load_float(row[c]) - shift);
  return warp_sum<kLanes>(total);
}

// Warp-per-row kernels: 256-thread blocks, each warp walks rows
// warp_row_begin(), + warp_row_step(), ... All 32 lanes of a warp see the
// same rows, so full-mask shuffles are safe inside the loop.
constexpr unsigned kWarpRowThreads = 256;

__device__ __forceinline__ int64_t warp_row_begin() {
  return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
}
__device__ __forceinline__ int64_t warp_row_step() { return (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5; }

// Blocks for `rows` rows, `rows_per_warp` to a warp (row groups of 32 / rows_per_warp lanes).
inline unsigned warp_row_blocks(int64_t rows, Device device, int64_t rows_per_warp = 1) {
  const int64_t rows_per_block = kWarpRowThreads / 32 * rows_per_warp;
  const int64_t wanted = (rows + rows_per_block - 1) / rows_per_block;
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 16;
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, cap));
}

}  // namespace sgnn::ops
