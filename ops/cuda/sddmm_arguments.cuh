// The kernel arguments shared by the SDDMM kernels (ops/cuda/sddmm.cu: the
// Segments path and sddmm_add; ops/cuda/sddmm_dense_rows.cu: the DenseRows
// path; ops/cuda/sddmm_edges.cu: the Edges path; ops/cuda/sddmm_edge_groups.cu:
// the EdgeGroups path; ops/cuda/sddmm_hrpb.cu: the Hrpb path), the vector
// loads they share, and the launches of the DenseRows, Edges, EdgeGroups and
// Hrpb kernels. x and y are float32 or bfloat16 (T; the Hrpb path rounds
// float32 to TF32), the output float32 or bfloat16: products and sums
// in float (a product of two bfloat16 is exact in float), so both dtypes
// round at the same points, and a bfloat16 output once more where it is stored.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/bfloat16.hpp"
#include "core/csr.hpp"
#include "core/hrpb.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/sparse_plan.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops::sddmm_cuda {

// Where the dot products go: float32, or bfloat16 rounded once (an SpMM's
// bfloat16 edge values' gradient). One pointer is set; the branch is uniform.
struct SddmmOutput {
  float* float32 = nullptr;
  bfloat16* bf16 = nullptr;
  __device__ __forceinline__ void store(int64_t k, float value) const {
    if (bf16 != nullptr) bf16[k] = bfloat16(value);
    else float32[k] = value;
  }
};

template <typename T>
struct SddmmArguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices;
  int64_t nnz;
  const int32_t* entry_row;  // null when the plan has none
  sparse_cuda::SegmentList segments;  // the Segments and DenseRows paths' work items
  int heads;
  int64_t features;  // per head
  const T* x;
  const T* y;
  SddmmOutput out;
};

inline SddmmOutput output_of(Tensor& out) {
  SddmmOutput output;
  if (out.dtype() == DType::BFloat16) output.bf16 = out.data<bfloat16>();
  else output.float32 = out.data<float>();
  return output;
}

template <typename T>
SddmmArguments<T> arguments_of(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features,
                               const Tensor& x, const Tensor& y, Tensor& out) {
  return {sparse_cuda::offsets_of(csr.indptr),
          csr.indices.data<int32_t>(),
          csr.nnz,
          plan.entry_row.defined() ? plan.entry_row.data<int32_t>() : nullptr,
          sparse_cuda::segment_list(plan, false),
          static_cast<int>(heads),
          features,
          x.data<T>(),
          y.data<T>(),
          output_of(out)};
}

// Elements of one 16-byte vector load: 4 float32 or 8 bfloat16.
template <typename T>
inline constexpr int kVectorElements = 16 / static_cast<int>(sizeof(T));

// Whether the vector kernels may run: whole 16-byte vectors per head, 16-byte bases.
inline bool vectorizable(int64_t features, const Tensor& x, const Tensor& y) {
  return features % vector_elements(x.dtype()) == 0 && sparse_cuda::aligned16(x.raw_data()) &&
         sparse_cuda::aligned16(y.raw_data());
}

// kVec consecutive elements from `pointer` as floats, through the read-only
// cache: one 16-byte load when kVec is kVectorElements<T> (the pointer then
// 16-byte aligned), else kVec must be 1.
template <int kVec, typename T>
__device__ __forceinline__ void load_slice(const T* pointer, float (&slice)[kVec]) {
  if constexpr (kVec == 1) {
    slice[0] = load_float_readonly(pointer);
  } else if constexpr (std::is_same_v<T, float>) {
    static_assert(kVec == 4, "float32 vectors are float4");
    const float4 value = __ldg(reinterpret_cast<const float4*>(pointer));
    slice[0] = value.x;
    slice[1] = value.y;
    slice[2] = value.z;
    slice[3] = value.w;
  } else {
    static_assert(kVec == 8, "bfloat16 vectors are 8 elements (16 bytes)");
    const uint4 value = __ldg(reinterpret_cast<const uint4*>(pointer));
    const unsigned words[4] = {value.x, value.y, value.z, value.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      // Element 2w is the low half of word w (little endian); a bfloat16 is the top half of its float.
      slice[2 * w] = __uint_as_float(words[w] << 16);
      slice[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
    }
  }
}

// Σ a[i]·b[i] over one slice of kVec elements, in float, in element order.
template <int kVec, typename T>
__device__ __forceinline__ float dot_slice(const T* a, const T* b) {
  float p[kVec];
  float q[kVec];
  load_slice<kVec>(a, p);
  load_slice<kVec>(b, q);
  float sum = p[0] * q[0];
#pragma unroll
  for (int i = 1; i < kVec; ++i) sum += p[i] * q[i];
  return sum;
}

// This lane's part of dot(x_row, y_row) over one head's features, for
// kLanes lanes of kVec elements: the slices (c·kLanes + lane)·kVec, c <
// kSlices, added in that order; kSlices = 0: as many as the width has, in a
// loop. A count known at compile time unrolls to the loads and FMAs; the
// loop cost its bounds, a remainder and 64-bit counters for every entry
// (cuobjdump, EdgeGroups of 8 lanes of float4: 3,368 instructions a kernel,
// 453 loads, against 976 and 37 unrolled).
template <int kVec, int kLanes, int kSlices, typename T>
__device__ __forceinline__ float lane_dot(const T* x_row, const T* y_row, int lane, int64_t features) {
  float sum = 0.0f;
  if constexpr (kSlices == 0) {
    for (int64_t f = lane * kVec; f < features; f += kLanes * kVec) sum += dot_slice<kVec>(x_row + f, y_row + f);
  } else {
#pragma unroll
    for (int c = 0; c < kSlices; ++c) {
      const int f = (c * kLanes + lane) * kVec;
      if (f < features) sum += dot_slice<kVec>(x_row + f, y_row + f);
    }
  }
  return sum;
}

// Entries a group of lanes reduces per step (DenseRows, Segments): at most
// `max_floats` of y in registers per lane, at most 8 entries, and no more
// entries than lanes (fold_sums needs one lane bit per halving). float32
// allows 64: at width 256 (two chunks) eight entries in flight instead of
// four made DenseRows 4-11% faster on the H100 on SBM and Chung-Lu graphs
// (61 registers, no spill; docs/kernels.md). bfloat16 keeps 32: with 64,
// ptxas spills DenseRows' eight-entry kernels (widths 64 and 256), and they
// were not measured.
constexpr int entries_per_step(int vec, int sub, int chunks, int max_floats) {
  int entries = 8;
  while (entries > 1 && (entries * chunks * vec > max_floats || entries > sub)) entries /= 2;
  return entries;
}

template <typename T>
inline constexpr int kMaxStepFloats = std::is_same_v<T, float> ? 64 : 32;

// Sums each of the first kCount values of `v` over the lanes that differ in
// the bits kOffset, kOffset/2, …, 1 of `lane`, halving the number of values
// at each of the first log2(kCount) steps: the lane whose bit kOffset is set
// keeps the upper half of the values and sends the lower half to its
// partner, and the other way round. Afterwards v[0] holds the full sum of
// value number `returned` (built from the lane's top log2(kCount) bits
// below 2·kOffset); lanes sharing those bits hold the same total.
// kCount − 1 + log2(2·kOffset / kCount) shuffles for kCount dot products.
// `mask`: the converged lanes taking part (all lanes differing in those bits).
template <int kCount, int kOffset, int kSize>
__device__ __forceinline__ int fold_sums(float (&v)[kSize], int lane, unsigned mask) {
  if constexpr (kOffset == 0) {
    return 0;
  } else if constexpr (kCount > 1) {
    constexpr int kHalf = kCount / 2;
    const bool upper = (lane & kOffset) != 0;
#pragma unroll
    for (int i = 0; i < kHalf; ++i) {
      const float send = upper ? v[i] : v[i + kHalf];
      const float keep = upper ? v[i + kHalf] : v[i];
      v[i] = keep + __shfl_xor_sync(mask, send, kOffset);
    }
    return (upper ? kHalf : 0) + fold_sums<kHalf, kOffset / 2>(v, lane, mask);
  } else {
    v[0] += __shfl_xor_sync(mask, v[0], kOffset);
    return fold_sums<1, kOffset / 2>(v, lane, mask);
  }
}

// Row `index` of an [n, width] operand: one 32 x 32 -> 64-bit multiply (node
// ids are int32, a row's width fits 32 bits).
template <typename T>
__device__ __forceinline__ const T* row_of(const T* base, int32_t index, int64_t width) {
  return base + uint64_t{static_cast<uint32_t>(index)} * static_cast<uint32_t>(width);
}

// sddmm_dot by the DenseRows kernel; features per head in
// 1..kDenseRowsMaxFeatures (ops/sddmm_path.hpp), vectorized per vectorizable().
template <typename T>
void launch_dense_rows(const SddmmArguments<T>& args, bool vectorized, Device device);

// sddmm_dot by the Edges kernel; needs args.entry_row.
template <typename T>
void launch_edges(const SddmmArguments<T>& args, bool vectorized, Device device);

// sddmm_dot by the EdgeGroups kernel with groups of `group_lanes` lanes (a
// power of two in 1..32); `rows` is the CSR's row count.
template <typename T>
void launch_edge_groups(const SddmmArguments<T>& args, int64_t rows, int group_lanes, bool vectorized, Device device);

// sddmm_dot by the HRPB kernel, where hrpb_sddmm_fits (ops/sddmm_path.hpp).
template <typename T>
void launch_hrpb(const Hrpb& hrpb, const SddmmArguments<T>& args, Device device);

}  // namespace sgnn::ops::sddmm_cuda
