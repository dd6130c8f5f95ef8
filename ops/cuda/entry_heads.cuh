// The entry layout of the per-edge kernels (the edge softmax, edge_sums):
// for GAT's usual 8 heads a lane takes whole entries, and an entry's heads
// are one 16-byte vector of bfloat16 or two of float, loaded and stored here.
#pragma once

#include <type_traits>

#include "ops/cuda/spmm_kernel.cuh"

namespace sgnn::ops::sparse_cuda {

// Heads of the entry layout: GAT's usual 8 (16 bytes of bfloat16, 32 of float a row).
inline constexpr int kEntryHeads = 8;

// An entry's kEntryHeads values as loaded (one or two 16-byte vectors),
// widened to float where they are used: a bfloat16 entry holds four registers
// instead of eight, so the per-entry kernels keep their batch of loads in
// flight at a higher occupancy (the forward attention softmax took 87-90
// registers and its backward 130-140 with the entries widened at the load).
template <typename T>
struct Heads;
template <>
struct Heads<float> {
  float4 low, high;
  __device__ __forceinline__ float operator[](int h) const {
    const float4& q = h < 4 ? low : high;
    const int k = h & 3;
    return k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
  }
};
// Element 2k is the low half of word k, as in spmm_cuda::Vector<bfloat16, 8>.
template <>
struct Heads<bfloat16> {
  uint4 bits;
  __device__ __forceinline__ float operator[](int h) const {
    const int k = h >> 1;
    const unsigned word = k == 0 ? bits.x : k == 1 ? bits.y : k == 2 ? bits.z : bits.w;
    return __uint_as_float((h & 1) ? (word & 0xFFFF0000u) : (word << 16));
  }
};

// An entry's kEntryHeads consecutive elements as loaded; `pointer` 16-byte aligned.
template <typename T>
__device__ __forceinline__ Heads<T> load_raw_heads(const T* pointer) {
  if constexpr (std::is_same_v<T, float>) {
    const float4* vectors = reinterpret_cast<const float4*>(pointer);
    return Heads<float>{__ldg(vectors), __ldg(vectors + 1)};
  } else {
    return Heads<bfloat16>{__ldg(reinterpret_cast<const uint4*>(pointer))};
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
