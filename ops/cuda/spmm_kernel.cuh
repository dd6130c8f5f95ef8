// The CSR SpMM kernel of ops/cuda/spmm.cu (see the design notes there), for
// B and C of element type T: float, or bfloat16 (loaded as float, summed in
// float registers, each output rounded once to bfloat16 when stored). Split
// rows' partial sums stay float whatever T is. Included by spmm.cu (float
// launches, the host side) and spmm_bf16.cu (bfloat16 launches): each
// translation unit instantiates the kernels of one element type.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/bfloat16.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops::spmm_cuda {

// Elements of T in one 16-byte access: 4 floats, 8 bfloat16s.
template <typename T>
inline constexpr int kWideVec = 16 / static_cast<int>(sizeof(T));

template <typename T, int kVec>
struct Vector;
template <>
struct Vector<float, 1> {
  __device__ static void load(const float* p, float (&v)[1]) { v[0] = __ldg(p); }
  __device__ static void store(float* p, const float (&v)[1]) { *p = v[0]; }
};
template <>
struct Vector<float, 4> {
  __device__ static void load(const float* p, float (&v)[4]) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
  }
  __device__ static void store(float* p, const float (&v)[4]) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  }
};
// Partials of a bfloat16 tile of 8 (two float4 stores).
template <>
struct Vector<float, 8> {
  __device__ static void store(float* p, const float (&v)[8]) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(p + 4) = make_float4(v[4], v[5], v[6], v[7]);
  }
};
template <>
struct Vector<bfloat16, 1> {
  __device__ static void load(const bfloat16* p, float (&v)[1]) { v[0] = load_float_readonly(p); }
  __device__ static void store(bfloat16* p, const float (&v)[1]) { *p = bfloat16(v[0]); }
};
// 4 bfloat16s in one 64-bit access (lanes of 4 elements: GATv2's fused
// kernels, whose 8 a lane spilled); element 2k is the low half of word k.
template <>
struct Vector<bfloat16, 4> {
  __device__ static void load(const bfloat16* p, float (&v)[4]) {
    const uint2 q = __ldg(reinterpret_cast<const uint2*>(p));
    v[0] = __uint_as_float(q.x << 16);
    v[1] = __uint_as_float(q.x & 0xFFFF0000u);
    v[2] = __uint_as_float(q.y << 16);
    v[3] = __uint_as_float(q.y & 0xFFFF0000u);
  }
};
// 8 bfloat16s in one 128-bit access; element 2k is the low half of word k.
template <>
struct Vector<bfloat16, 8> {
  __device__ static void load(const bfloat16* p, float (&v)[8]) {
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
    const unsigned words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[2 * k] = __uint_as_float(words[k] << 16);
      v[2 * k + 1] = __uint_as_float(words[k] & 0xFFFF0000u);
    }
  }
  __device__ static void store(bfloat16* p, const float (&v)[8]) {
    unsigned words[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      words[k] = unsigned{bfloat16::round_bits(v[2 * k])} | (unsigned{bfloat16::round_bits(v[2 * k + 1])} << 16);
    }
    *reinterpret_cast<uint4*>(p) = make_uint4(words[0], words[1], words[2], words[3]);
  }
};

template <typename T>
struct SpmmArguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices;
  const float* values;  // [nnz · heads] or null (bfloat16 values below, or weight 1)
  sparse_cuda::SegmentList segments;  // items [0, segments.split_segments) belong to split rows
  // [split_segments, width]: deterministic mode, and always for bfloat16 C (a
  // split row is rounded once, after its partials are summed); else null (atomics).
  float* partials;
  int heads;
  int64_t features;  // per head
  int64_t tiles;     // feature tiles per (row, head)
  bool vector_indices;
  const T* b;
  T* c;
  bool slice_major = false;  // item order: all (segment, head) of tile 0 first, then tile 1, …
  bool item_grid = false;    // a subwarp for each item (slice-major launches always are)
  // With values null: Adjacency::symmetric_scale (entry (r, c) weighs
  // float(s[r] · s[c]), bitwise the stored value), or null (weight 1).
  const double* symmetric_scale = nullptr;
  // bfloat16 edge values (GAT's attention in a bf16 model) where `values` is
  // null: read as float, half the bytes per entry.
  const bfloat16* bf16_values = nullptr;
  // Entry e's weights at value_map[e] of the values (spmm_backend.hpp), or null.
  const int32_t* value_map = nullptr;
  // The light kernel may count in 32 bits: 32-bit row offsets, and every
  // item, element offset of B, C and the partials below 2^31 with room for
  // the steps past an end (a chunk of entries, a segment's length; set by
  // the host, spmm.cu).
  bool int32_fits = false;
  // g-SpMM's Mean: an unsplit row's sums times 1 / (its entry count) when
  // stored; split rows are scaled after their partials meet (spmm.cu).
  bool average = false;
};

// Where entry `position`'s weights are: value_map[position], else the entry itself.
template <typename T>
__device__ __forceinline__ int64_t value_entry_of(const SpmmArguments<T>& args, int64_t position) {
  return args.value_map ? int64_t{__ldg(args.value_map + position)} : position;
}

// The weight of entry `position` (column `column` of `row`) for `head`:
// float values, else bfloat16 values, else the symmetric scale, else 1.
template <typename T>
__device__ __forceinline__ float entry_weight(const SpmmArguments<T>& args, int64_t position, int64_t row,
                                              int32_t column, int head) {
  if (args.values) return __ldg(args.values + value_entry_of(args, position) * args.heads + head);
  if (args.bf16_values) {
    return load_float_readonly(args.bf16_values + value_entry_of(args, position) * args.heads + head);
  }
  if (args.symmetric_scale) {
    return static_cast<float>(__ldg(args.symmetric_scale + row) * __ldg(args.symmetric_scale + column));
  }
  return 1.0f;
}

// A work item's sums for C[row, offset .. offset + kVec): stored, or where the
// item is a segment of a split row, its partials (deterministic mode and
// bfloat16 C) or atomic adds into C (float C, cleared before the launch).
template <typename T, int kVec>
__device__ __forceinline__ void store_output(const SpmmArguments<T>& args, int64_t segment, int64_t row,
                                             int64_t offset, const float (&acc)[kVec]) {
  const int64_t width = args.heads * args.features;
  if (segment >= args.segments.split_segments) {
    if (args.average) {
      const int64_t length = args.indptr[row + 1] - args.indptr[row];
      const float factor = length > 0 ? 1.0f / static_cast<float>(length) : 1.0f;  // an empty row's sum is 0
      float scaled[kVec];
#pragma unroll
      for (int v = 0; v < kVec; ++v) scaled[v] = acc[v] * factor;
      return Vector<T, kVec>::store(args.c + row * width + offset, scaled);
    }
    Vector<T, kVec>::store(args.c + row * width + offset, acc);
  } else if (args.partials != nullptr) {
    Vector<float, kVec>::store(args.partials + segment * width + offset, acc);
  } else if constexpr (std::is_same_v<T, float>) {  // bfloat16 C always has partials
#pragma unroll
    for (int v = 0; v < kVec; ++v) atomicAdd(args.c + row * width + offset + v, acc[v]);
  }
}

// kAcrossHeads: one item covers all heads of a segment (tiles over the whole
// row of heads × features, each lane inside one head) instead of one head.
// Where a head is narrow (GAT's 8 heads of 8) the per-head items leave a
// lane alone with its segment: 4 entries staged per index load and two
// dependent memory latencies per 4 entries. Across heads, the lanes of all
// heads stage a segment's entries together and each lane loads its own
// head's weight beside the row it gathers (the same sums in the same order).
// Weight: the element type of the per-head values a lane loads across heads
// (float or bfloat16; a template parameter, so that the per-entry load is
// one path, not both predicated).
template <typename T, int kVec, int kSub, int kRepeat, typename Index, bool kAcrossHeads, typename Weight = float>
__device__ __forceinline__ void spmm_segments(const SpmmArguments<T>& args) {
  static_assert(!kAcrossHeads || kRepeat == 1, "a lane's accesses stay inside one head");
  constexpr int kTile = kSub * kVec * kRepeat;
  constexpr int kChunk = kSub * 4;  // entries a subwarp stages per step (4 per lane)
  constexpr bool kBatchLoads = kVec == 1 || kRepeat == 1;
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;  // row stride of B and C
  const int64_t item_heads = kAcrossHeads ? 1 : args.heads;
  const int64_t extent = kAcrossHeads ? width : args.features;  // what an item's tiles cover
  // Weights that differ by head are loaded per lane at use when across heads.
  const bool lane_weights = kAcrossHeads && (args.values != nullptr || args.bf16_values != nullptr);
  const int64_t segment_heads = args.segments.count * item_heads;
  const int64_t items = segment_heads * args.tiles;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::ItemPlace<int64_t> place =
        sparse_cuda::item_place(item, args.tiles, item_heads, segment_heads, args.slice_major);
    const int64_t tile = place.tile;
    const int head = static_cast<int>(place.head);  // 0 across heads
    const int64_t segment = place.segment;
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const int64_t row = range.row;
    const int64_t begin = range.begin;
    const int64_t end = range.end;
    const int64_t head_base = head * args.features;
    const int64_t feature0 = tile * kTile + lane * kVec;
    const bool lane_active = feature0 < extent;
    const int lane_head = kAcrossHeads && lane_active ? static_cast<int>(feature0 / args.features) : head;
    const Weight* lane_values = nullptr;  // this lane's head's weights (lane_weights)
    if constexpr (kAcrossHeads) {
      if constexpr (std::is_same_v<Weight, float>) lane_values = args.values;
      else lane_values = args.bf16_values;
      if (lane_values != nullptr) lane_values += lane_head;
    }

    float acc[kRepeat][kVec];
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[r][v] = 0.0f;
    }

    const int64_t start = args.vector_indices ? (begin & ~int64_t{3}) : begin;
    for (int64_t chunk = start; chunk < end; chunk += kChunk) {
      // Stage: this lane's 4 entries, pre-scaled to offsets into B.
      const int64_t mine = chunk + lane * 4;
      int32_t column[4];
      if (args.vector_indices && mine + 3 < end) {
        const int4 quad = __ldg(reinterpret_cast<const int4*>(args.indices + mine));
        column[0] = quad.x; column[1] = quad.y; column[2] = quad.z; column[3] = quad.w;
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) column[k] = (mine + k >= begin && mine + k < end) ? __ldg(args.indices + mine + k) : 0;
      }
      Index scaled[4];
      // A weight, or where each lane loads its own head's weights (lane_weights)
      // the entry's index into the values, carried in the weight's register.
      float weight[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int64_t position = mine + k;
        const bool inside = position >= begin && position < end;
        scaled[k] = static_cast<Index>(column[k]) * static_cast<Index>(width) + static_cast<Index>(head_base);
        weight[k] = !inside       ? 0.0f
                    : lane_weights ? __int_as_float(static_cast<int32_t>(value_entry_of(args, position)))
                                   : entry_weight(args, position, row, column[k], head);
      }
      // Accumulate the staged entries in row order (uniform control flow per
      // subwarp). Tiles of one access per lane issue all loads of a source
      // lane's 4 entries before the first FMA: one memory latency per 4
      // entries, not per entry (ncu: a 128-entry segment took 29 µs when each
      // load waited for the last). Tiles of two accesses per lane (float
      // width 256) load per entry: 8 float4 in flight per lane cost
      // occupancy, and the batched form ran 6.57 -> 7.30 ms on a 31M-entry R-MAT.
      // Masked entries are skipped, not multiplied by 0: 0 · Inf would be NaN.
      const int64_t chunk_end = end < chunk + kChunk ? end : chunk + kChunk;
      for (int source = 0; source < kSub; ++source) {
        const int64_t first = chunk + source * 4;  // the source lane's first entry
        if (first >= chunk_end) break;
        // Its entries k in [inside_from, inside_to) lie in the segment: 32-bit
        // tests per entry instead of two 64-bit ones (ncu: instruction-bound).
        const int inside_from = begin > first ? static_cast<int>(begin - first) : 0;
        const int inside_to = end - first < 4 ? static_cast<int>(end - first) : 4;
        Index offset[4];
        float w[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          offset[k] = __shfl_sync(mask, scaled[k], source, kSub);
          w[k] = __shfl_sync(mask, weight[k], source, kSub);
        }
        if constexpr (kAcrossHeads) {
          if (lane_values != nullptr && lane_active) {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              const int64_t value_entry = args.value_map ? int64_t{__float_as_int(w[k])} : first + k;
              w[k] = k < inside_from || k >= inside_to ? 0.0f
                                                       : load_float_readonly(lane_values + value_entry * args.heads);
            }
          }
        }
        if constexpr (kBatchLoads) {
#pragma unroll
          for (int r = 0; r < kRepeat; ++r) {
            const int64_t feature = feature0 + r * kSub * kVec;
            if (feature >= extent) continue;
            float loaded[4][kVec];
#pragma unroll
            for (int k = 0; k < 4; ++k) Vector<T, kVec>::load(args.b + offset[k] + feature, loaded[k]);
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              if (k < inside_from || k >= inside_to) continue;
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] += w[k] * loaded[k][v];
            }
          }
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            if (k < inside_from || k >= inside_to) continue;
#pragma unroll
            for (int r = 0; r < kRepeat; ++r) {
              const int64_t feature = feature0 + r * kSub * kVec;
              if (feature >= extent) continue;
              float loaded[kVec];
              Vector<T, kVec>::load(args.b + offset[k] + feature, loaded);
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] += w[k] * loaded[v];
            }
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      const int64_t feature = feature0 + r * kSub * kVec;
      if (feature < extent) store_output<T, kVec>(args, segment, row, head_base + feature, acc[r]);
    }
  }
}

// The light tiles: the same items, sums and order as spmm_segments with one
// access per lane, in at most 32 registers so that 64 warps fit an SM (the
// tiles above take 48-78: 32-40 warps). Each lane stages one entry (its
// offset into B and its weight) instead of four, the subwarp gathers the
// staged entries kBatch at a time, and every index is 32-bit, which is what
// brings the registers down. A light tile runs only where the graph and the
// width fit 32 bits (args.int32_fits); elsewhere its heavy twin runs: the
// same sums in the same order, so the same bits. Twice the resident warps
// keep more loads in flight where a gather waits on L2: 3-6% faster than
// the heavy twin on SBM graphs at widths 64-128 (docs/kernels.md); the
// heavy tiles win elsewhere, and which one runs is timed.
// Caps of 40 or 64 registers (6 or 4 blocks an SM) for 16 and 32 lanes were
// measured: 1.5-2% faster on the SBM graph, 2-5% slower on a Chung-Lu one;
// not kept. Tiles of 4 and 8 lanes (widths 16 and 32) run under 40 or 64
// registers, both timed: under 32 the 8-lane one spilled and issued its
// loads one at a time (the heavy tile executed 2.5x RoDe's instructions on
// SBM graphs at width 32, ncu; docs/kernels.md).
// Also measured and not kept (bench/history.md): staging the entries in
// shared memory instead of shuffling them, the FMAs on a select instead of
// skipped, and L1-caching loads instead of ld.global.nc.
// kRepeat (1 or 2): 16-byte accesses a lane per entry, kSub · kVec columns apart.
template <typename T, int kVec, int kSub, int kRepeat>
__device__ __forceinline__ void spmm_light_segments(const SpmmArguments<T>& args) {
  using Int = int32_t;
  // Entries of a group, whose loads may all be issued before their FMAs.
  constexpr int kBatch = kSub < 8 / kRepeat ? kSub : 8 / kRepeat;
  constexpr Int kStride = kSub * kVec;  // between a lane's accesses
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const Int width = static_cast<Int>(args.heads * args.features);
  const Int heads = static_cast<Int>(args.heads);
  const Int tiles = static_cast<Int>(args.tiles);
  const Int segment_heads = static_cast<Int>(args.segments.count) * heads;
  const Int items = segment_heads * tiles;
  const Int stride = static_cast<Int>(sparse_cuda::subwarp_count(kSub));
  // The step is taken only where it stays below `items`: with one subwarp
  // per item (slice-major launches) item + stride may pass 2^31.
  for (Int item = static_cast<Int>(sparse_cuda::global_subwarp(kSub)); item < items;
       item = items - item > stride ? item + stride : items) {
    const auto [tile, head, segment] = sparse_cuda::item_place(item, tiles, heads, segment_heads, args.slice_major);
    const sparse_cuda::NarrowSegmentRange range =
        sparse_cuda::narrow_segment_range(args.segments, args.indptr.narrow, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const Int row = range.row;
    const Int begin = range.begin;
    const Int end = range.end;
    const Int head_base = head * static_cast<Int>(args.features);
    const Int feature = tile * (kStride * kRepeat) + lane * kVec;
    // An access past the head's width reads its column 0 (the loads stay
    // unconditional) and is not stored. The bases are opaque so that each
    // gather's address is one IMAD.WIDE of the staged offset.
    bool active[kRepeat];
    const T* b[kRepeat];
    float acc[kRepeat][kVec];
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      active[r] = feature + r * kStride < static_cast<Int>(args.features);
      b[r] = sparse_cuda::opaque(args.b + head_base + (active[r] ? feature + r * kStride : 0));
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[r][v] = 0.0f;
    }
    for (Int chunk = begin; chunk < end; chunk += kSub) {
      const Int position = chunk + lane;
      const bool inside = position < end;
      const int32_t column = inside ? __ldg(args.indices + position) : 0;
      const Int offset = static_cast<Int>(column) * width;
      const float weight = inside ? entry_weight(args, position, row, column, static_cast<int>(head)) : 0.0f;
      const int staged = end - chunk < kSub ? static_cast<int>(end - chunk) : kSub;
      // Loads of a group are unconditional (a slot past the staged entries
      // reads B's row 0, which exists where a row has entries), so that
      // ptxas may issue them before the FMAs; their products are skipped,
      // not multiplied by 0 (0 · Inf is NaN). Multiplying them by 0, as
      // GE-SpMM does, was slower at every register budget: 1.3-7.5% at 40
      // and 64, and up to 1.68x under this kernel's 32, where it spilled
      // (docs/kernels.md).
      for (int first = 0; first < staged; first += kBatch) {
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
          const Int at = __shfl_sync(mask, offset, first + k, kSub);
          const float w = __shfl_sync(mask, weight, first + k, kSub);
          float loaded[kRepeat][kVec];
#pragma unroll
          for (int r = 0; r < kRepeat; ++r) Vector<T, kVec>::load(b[r] + at, loaded[r]);
          if (first + k < staged) {
#pragma unroll
            for (int r = 0; r < kRepeat; ++r) {
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] += w * loaded[r][v];
            }
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      if (active[r]) store_output<T, kVec>(args, segment, row, head_base + feature + r * kStride, acc[r]);
    }
  }
}

template <typename T, int kVec, int kSub, int kBlocks, int kRepeat>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, kBlocks) spmm_light_kernel(SpmmArguments<T> args) {
  spmm_light_segments<T, kVec, kSub, kRepeat>(args);
}

template <typename T, int kVec, int kSub, int kRepeat>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) spmm_kernel(SpmmArguments<T> args) {
  spmm_segments<T, kVec, kSub, kRepeat, int32_t, false>(args);
}

// Tiles across heads ask for 4 resident blocks (at most 64 registers): left
// to itself ptxas gave the bfloat16 8-lane tile 76 registers, 3 blocks, and
// GAT's aggregation ran 27.0 -> 38.7 ms (ncu, two epochs on the Reddit-scale
// preset) once the edge map came in; at 64 it spills a few bytes to L1.
template <typename T, int kVec, int kSub, typename Weight>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, 4) spmm_across_heads_kernel(SpmmArguments<T> args) {
  spmm_segments<T, kVec, kSub, 1, int32_t, true, Weight>(args);
}

// 64-bit offsets (B with ≥ 2^31 elements) need more registers: asking for 2
// resident blocks lets ptxas give them up to 128 instead of spilling (an
// explicit minimum on the 32-bit kernel would change its allocation too).
template <typename T, int kVec, int kSub, int kRepeat, bool kAcrossHeads, typename Weight>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, 2) spmm_wide_index_kernel(SpmmArguments<T> args) {
  spmm_segments<T, kVec, kSub, kRepeat, int64_t, kAcrossHeads, Weight>(args);
}

// The tile of one launch (ops/spmm_tile.hpp): launch_tile_of below has a
// kernel for each tile spmm_tile_has_kernel accepts.
using SpmmTile = ::sgnn::ops::SpmmTile;

// Slice-major items run one subwarp each, blocks in index order
// (sparse_cuda::item_blocks), so the subwarps at work at one time gather one
// slice of B for neighbouring rows. Other orders keep a few waves of
// grid-striding blocks: one subwarp per item helped the segment-major tiles
// where rows have locality but cost them up to 16% on the 5-point stencil
// and 10% on the hub row (docs/kernels.md); the light tiles' "-items" twins
// (args.item_grid) launch so too, and the choice times both.
template <typename T, int kSub>
void launch_items(void (*kernel)(SpmmArguments<T>), int64_t items, const SpmmArguments<T>& args, Device device) {
  const unsigned blocks =
      args.slice_major || args.item_grid ? sparse_cuda::item_blocks(items, kSub)
                                         : sparse_cuda::subwarp_blocks(items, kSub, device);
  kernel<<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("spmm_kernel");
}

template <typename T, int kVec, int kSub, int kRepeat, bool kAcrossHeads = false, typename Weight = float>
void launch(const SpmmArguments<T>& args, bool wide_index, Device device) {
  const int64_t items = args.segments.count * (kAcrossHeads ? 1 : args.heads) * args.tiles;
  if (wide_index) {
    return launch_items<T, kSub>(spmm_wide_index_kernel<T, kVec, kSub, kRepeat, kAcrossHeads, Weight>, items, args,
                                 device);
  }
  if constexpr (kAcrossHeads) {
    return launch_items<T, kSub>(spmm_across_heads_kernel<T, kVec, kSub, Weight>, items, args, device);
  } else {
    return launch_items<T, kSub>(spmm_kernel<T, kVec, kSub, kRepeat>, items, args, device);
  }
}

template <typename T, int kVec, int kRepeat, bool kAcrossHeads = false, typename Weight = float>
void launch_sub(int sub, const SpmmArguments<T>& args, bool wide_index, Device device) {
  switch (sub) {
    case 1: return launch<T, kVec, 1, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
    case 2: return launch<T, kVec, 2, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
    case 4: return launch<T, kVec, 4, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
    case 8: return launch<T, kVec, 8, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
    case 16: return launch<T, kVec, 16, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
    default: return launch<T, kVec, 32, kRepeat, kAcrossHeads, Weight>(args, wide_index, device);
  }
}

// kBlocks: the blocks of 256 threads an SM the kernel asks for, which sets
// its register budget (8: 32 registers, 6: 40, 4: 64).
template <typename T, int kVec, int kSub, int kBlocks, int kRepeat = 1>
void launch_light(const SpmmArguments<T>& args, Device device) {
  launch_items<T, kSub>(spmm_light_kernel<T, kVec, kSub, kBlocks, kRepeat>,
                        args.segments.count * args.heads * args.tiles, args, device);
}

// Launches `tile` (spmm_tile_has_kernel must hold) for element type T.
template <typename T>
void launch_tile_of(const SpmmTile& tile, const SpmmArguments<T>& args, bool wide_index, Device device) {
  constexpr int kWide = kWideVec<T>;
  if constexpr (std::is_same_v<T, float>) {
    if (tile.light && args.int32_fits) {  // else its heavy twin below
      if (tile.repeat == 2) return launch_light<T, kWide, 8, 4, 2>(args, device);  // 8 lanes, 64 registers
      const bool budget64 = tile.light_registers == 64;  // 4 and 8 lanes: 40 or 64 registers
      if (tile.sub == 4) {
        return budget64 ? launch_light<T, kWide, 4, 4>(args, device) : launch_light<T, kWide, 4, 6>(args, device);
      }
      if (tile.sub == 8) {
        return budget64 ? launch_light<T, kWide, 8, 4>(args, device) : launch_light<T, kWide, 8, 6>(args, device);
      }
      if (tile.sub == 16) return launch_light<T, kWide, 16, 8>(args, device);
      return launch_light<T, kWide, 32, 8>(args, device);
    }
  }
  if (tile.across_heads) {  // the weights' element type picks the kernel (spmm_segments' Weight)
    if (args.bf16_values != nullptr) return launch_sub<T, kWide, 1, true, bfloat16>(tile.sub, args, wide_index, device);
    return launch_sub<T, kWide, 1, true, float>(tile.sub, args, wide_index, device);
  }
  if (tile.vec == kWide) {
    if (tile.repeat == 4) return launch_sub<T, kWide, 4>(tile.sub, args, wide_index, device);
    if (tile.repeat == 2) return launch_sub<T, kWide, 2>(tile.sub, args, wide_index, device);
    return launch_sub<T, kWide, 1>(tile.sub, args, wide_index, device);
  }
  if (tile.repeat == 4) return launch<T, 1, 32, 4>(args, wide_index, device);
  return launch_sub<T, 1, 1>(tile.sub, args, wide_index, device);
}

// The bfloat16 launches live in their own translation unit (spmm_bf16.cu):
// the kernels of each element type compile in parallel.
void launch_tile(const SpmmTile& tile, const SpmmArguments<bfloat16>& args, bool wide_index, Device device);

}  // namespace sgnn::ops::spmm_cuda
