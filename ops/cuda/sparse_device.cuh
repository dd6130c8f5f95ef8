// Device helpers shared by the sparse CUDA kernels (spmm.cu, sddmm.cu,
// edge_softmax.cu): subwarp arithmetic, CSR offset reads of either width, and
// the grid of a subwarp-per-item, grid-stride launch.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/cuda/launch.cuh"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops::sparse_cuda {

inline constexpr unsigned kBlockThreads = 256;

// One CSR's offsets as a kernel argument: exactly one pointer is set.
struct Offsets {
  const int32_t* narrow = nullptr;
  const int64_t* wide = nullptr;
  __device__ __forceinline__ int64_t operator[](int64_t i) const { return wide ? wide[i] : int64_t{narrow[i]}; }
};

inline Offsets offsets_of(const Tensor& tensor) {
  Offsets offsets;
  with_offsets(tensor, [&](const auto* pointer) {
    if constexpr (sizeof(*pointer) == 8) offsets.wide = pointer;
    else offsets.narrow = pointer;
  });
  return offsets;
}

// The entries [begin, end) of one work segment of the plan (ops/sparse_segments.hpp):
// at most `length` entries from its begin, never past its row's end.
struct SegmentRange {
  int64_t row;
  int64_t begin;
  int64_t end;
};
__device__ __forceinline__ SegmentRange segment_range(const int32_t* rows, const int64_t* begins, Offsets indptr,
                                                      int64_t length, int64_t segment) {
  const int64_t row = rows[segment];
  const int64_t begin = begins[segment];
  const int64_t row_end = indptr[row + 1];
  return {row, begin, begin + length < row_end ? begin + length : row_end};
}

using ::sgnn::aligned16;

// The lanes of this thread's subwarp of kWidth lanes (kWidth a power of two ≤ 32).
template <int kWidth>
__device__ __forceinline__ unsigned subwarp_mask() {
  if constexpr (kWidth == 32) {
    return 0xffffffffu;
  } else {
    const unsigned lane = threadIdx.x & 31u;
    return ((1u << kWidth) - 1u) << (lane & ~static_cast<unsigned>(kWidth - 1));
  }
}

// Sum over the subwarp; every lane gets the total.
template <int kWidth>
__device__ __forceinline__ float subwarp_sum(float value, unsigned mask) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(mask, value, offset, kWidth);
  return value;
}

// Blocks for `items` work items of kWidth lanes each, grid-stride: at most a
// few waves of blocks (never the grid limit), at least one.
inline unsigned subwarp_blocks(int64_t items, int width, Device device) {
  const int64_t per_block = kBlockThreads / static_cast<unsigned>(width);
  const int64_t wanted = (items + per_block - 1) / per_block;
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 32;
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, cap));
}

__device__ __forceinline__ int64_t global_subwarp(int width) {
  return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / width;
}
__device__ __forceinline__ int64_t subwarp_count(int width) {
  return static_cast<int64_t>(gridDim.x) * blockDim.x / width;
}

inline int next_power_of_two(int64_t value, int limit) {
  int width = 1;
  while (width < limit && width < value) width *= 2;
  return width;
}

}  // namespace sgnn::ops::sparse_cuda
