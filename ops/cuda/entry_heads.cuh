// The entry layout of the per-edge kernels (the edge softmax, edge_sums):
// for GAT's usual 8 heads a lane takes whole entries, and an entry's heads
// are one 16-byte vector of bfloat16 or two of float, loaded and stored here.
#pragma once

#include <type_traits>

#include "ops/cuda/spmm_kernel.cuh"

namespace sgnn::ops::sparse_cuda {

// Heads of the entry layout: GAT's usual 8 (16 bytes of bfloat16, 32 of float a row).
inline constexpr int kEntryHeads = 8;

// An entry's kEntryHeads consecutive elements as floats; `pointer` 16-byte aligned.
template <typename T>
__device__ __forceinline__ void load_heads(const T* pointer, float (&value)[kEntryHeads]) {
  if constexpr (std::is_same_v<T, float>) {
    float low[4], high[4];
    spmm_cuda::Vector<float, 4>::load(pointer, low);
    spmm_cuda::Vector<float, 4>::load(pointer + 4, high);
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      value[h] = low[h];
      value[h + 4] = high[h];
    }
  } else {
    spmm_cuda::Vector<bfloat16, 8>::load(pointer, value);
  }
}

// Stores kEntryHeads floats (rounded once for bfloat16); `pointer` 16-byte aligned.
template <typename T>
__device__ __forceinline__ void store_heads(T* pointer, const float (&value)[kEntryHeads]) {
  if constexpr (std::is_same_v<T, float>) {
    const float low[4] = {value[0], value[1], value[2], value[3]};
    const float high[4] = {value[4], value[5], value[6], value[7]};
    spmm_cuda::Vector<float, 4>::store(pointer, low);
    spmm_cuda::Vector<float, 4>::store(pointer + 4, high);
  } else {
    spmm_cuda::Vector<bfloat16, 8>::store(pointer, value);
  }
}

}  // namespace sgnn::ops::sparse_cuda
