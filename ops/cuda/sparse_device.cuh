// Device helpers shared by the sparse CUDA kernels (spmm.cu, sddmm.cu,
// edge_softmax.cu): subwarp arithmetic, CSR offset reads of either width, and
// the grid of a subwarp-per-item, grid-stride launch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/bfloat16.hpp"
#include "core/cuda/launch.cuh"
#include "ops/sparse_offsets.hpp"
#include "ops/sparse_plan.hpp"

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

// The work items of the segment kernels, in one of two orders (both timed
// where timing pays, ops/kernel_choices.hpp):
//   - the plan's list (ops/sparse_segments.hpp): split rows' segments first,
//     then whole rows longest first (Sputnik's row swizzle: heavy work
//     starts early);
//   - by_row: the split rows' segments first, then every row in row order,
//     the split rows skipped (their segments came first). Rows that are
//     near in the numbering and in the graph (community blocks, meshes)
//     then run at the same time and share L2 lines of the dense operand,
//     which the longest-first order scatters over the whole graph.
struct SegmentList {
  const int32_t* row = nullptr;    // the plan's segment_row
  const int64_t* begin = nullptr;  // the plan's segment_begin
  int64_t count = 0;               // work items: plan segments, or split_segments + rows by row
  int64_t split_segments = 0;      // items [0, split_segments) are segments of split rows
  int64_t length = 0;              // entries per segment at most
  bool by_row = false;
};

inline SegmentList segment_list(const SparsePlan& plan, bool by_row) {
  return {plan.segment_row.data<int32_t>(),
          plan.segment_begin.data<int64_t>(),
          by_row ? plan.split_segments + plan.num_rows : plan.segments,
          plan.split_segments,
          plan.segment_length,
          by_row};
}

// The entries [begin, end) of one work item: at most `length` entries from
// its begin, never past its row's end. skip: a split row met in row order,
// which is not this item's work (uniform for the item's lanes).
struct SegmentRange {
  int64_t row;
  int64_t begin;
  int64_t end;
  bool skip;
};
__device__ __forceinline__ SegmentRange segment_range(const SegmentList& list, Offsets indptr, int64_t item) {
  if (list.by_row && item >= list.split_segments) {
    const int64_t row = item - list.split_segments;
    const int64_t begin = indptr[row];
    const int64_t end = indptr[row + 1];
    return {row, begin, end, end - begin > list.length};
  }
  const int64_t row = list.row[item];
  const int64_t begin = list.begin[item];
  const int64_t row_end = indptr[row + 1];
  return {row, begin, begin + list.length < row_end ? begin + list.length : row_end, false};
}

// segment_range in 32-bit counting, for the light kernels, which run only
// where the graph and the width fit it (light_spmm_tiles_fit: the row
// offsets are then 32-bit).
struct NarrowSegmentRange {
  int32_t row;
  int32_t begin;
  int32_t end;
  bool skip;
};
__device__ __forceinline__ NarrowSegmentRange narrow_segment_range(const SegmentList& list, const int32_t* indptr,
                                                                   int32_t item) {
  const auto length = static_cast<int32_t>(list.length);
  if (list.by_row && item >= static_cast<int32_t>(list.split_segments)) {
    const int32_t row = item - static_cast<int32_t>(list.split_segments);
    const int32_t begin = indptr[row];
    const int32_t end = indptr[row + 1];
    return {row, begin, end, end - begin > length};
  }
  const int32_t row = list.row[item];
  const auto begin = static_cast<int32_t>(list.begin[item]);
  const int32_t row_end = indptr[row + 1];
  return {row, begin, begin + length < row_end ? begin + length : row_end, false};
}

using ::sgnn::aligned16;

// Where work item `item` is: its feature tile, head and segment. Items run
// segment by segment, heads within a segment, tiles fastest; slice-major,
// tile by tile with (segment, head) fastest. One head in one tile (a
// single-head graph at widths up to a tile's) skips the divisions by
// runtime values: three 32-bit ones are about 75 instructions an item (ncu,
// the light SpMM tiles), a 64-bit one a call.
template <typename Index>
struct ItemPlace {
  Index tile;
  Index head;
  Index segment;
};
template <typename Index>
__device__ __forceinline__ ItemPlace<Index> item_place(Index item, Index tiles, Index heads, Index segment_heads,
                                                       bool slice_major) {
  if (tiles == 1 && heads == 1) return {0, 0, item};
  const Index tile = slice_major ? item / segment_heads : item % tiles;
  const Index segment_head = slice_major ? item - tile * segment_heads : item / tiles;
  return {tile, segment_head % heads, segment_head / heads};
}

// `pointer`, hidden from the optimizer: a gather `opaque(base) + offset` in a
// loop stays one wide multiply-add (IMAD.WIDE) instead of the sum of the
// base's parts and the offset, shifted and added again (4 instructions an
// entry in the light SpMM tiles; ncu).
template <typename T>
__device__ __forceinline__ const T* opaque(const T* pointer) {
  asm("" : "+l"(pointer));
  return pointer;
}

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

// Blocks for one subwarp of `width` lanes per work item (the grid-stride
// loop then runs once; past the grid's limit it covers the rest). Blocks
// start in index order as others finish, as GE-SpMM's grid does (Huang et
// al. SC'20). Slice-major SpMM (spmm.cu) and the DenseRows SDDMM
// (sddmm_dense_rows.cu) launch this way: one resident wave of blocks
// striding over the same items was 2-25% slower for the SpMM on SBM and
// Chung-Lu graphs at widths 128-256, several waves slower still; the SDDMM's
// several waves (subwarp_blocks) were up to 1.7x slower (docs/kernels.md).
inline unsigned item_blocks(int64_t items, int width) {
  const int64_t per_block = kBlockThreads / static_cast<unsigned>(width);
  const int64_t wanted = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, std::numeric_limits<int32_t>::max()));
}

__device__ __forceinline__ int64_t global_subwarp(int width) {
  return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / width;
}
__device__ __forceinline__ int64_t subwarp_count(int width) {
  return static_cast<int64_t>(gridDim.x) * blockDim.x / width;
}

// C[split row k, :] = value for every split row, before their segments meet
// there with atomics: 0 for the SpMM's sums (spmm.cu), -inf and +inf for
// g-SpMM's max and min (gspmm_kernel.cuh).
template <typename T>
__global__ void fill_split_rows_kernel(const int32_t* __restrict__ rows, int64_t count, int64_t width, T value,
                                       T* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    c[int64_t{rows[k]} * width + (i - k * width)] = value;
  }
}

// The factor of a split row's sum: 1 / (its entry count) under `average`
// (g-SpMM's Mean), else 1.
__device__ __forceinline__ float split_row_factor(Offsets indptr, int32_t row, bool average) {
  return average ? 1.0f / static_cast<float>(indptr[int64_t{row} + 1] - indptr[row]) : 1.0f;
}

// C[split row k, j] = Σ partials[s, j] over the row's segments s in order,
// one thread per element (coalesced over j), summed in float and stored
// (rounded once for bfloat16); times 1 / (the row's entries) under `average`.
// Deterministic mode's merge of split rows (spmm.cu, gatv2.cu).
template <typename T>
__global__ void reduce_split_rows_kernel(const int32_t* __restrict__ rows, const int64_t* __restrict__ offsets,
                                         const float* __restrict__ partials, int64_t count, int64_t width,
                                         Offsets indptr, bool average, T* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    const int64_t j = i - k * width;
    float sum = 0.0f;
    for (int64_t s = offsets[k]; s < offsets[k + 1]; ++s) sum += partials[s * width + j];
    if (average) sum *= split_row_factor(indptr, rows[k], true);
    c[int64_t{rows[k]} * width + j] = store_as<T>(sum);
  }
}

inline int next_power_of_two(int64_t value, int limit) {
  int width = 1;
  while (width < limit && width < value) width *= 2;
  return width;
}

}  // namespace sgnn::ops::sparse_cuda
