// The generalized g-SpMM kernel (ops/gspmm_backend.hpp) for outputs of type T
// (float or bfloat16; operands of either type, read as float). Included by
// gspmm.cu (float outputs, the host side) and gspmm_bf16.cu (bfloat16
// outputs): each translation unit instantiates one output type.
//
// The structure is the CSR SpMM's (ops/cuda/spmm_kernel.cuh, after Sputnik):
//  - work items are the plan's balanced segments (ops/sparse_segments.hpp) ×
//    heads × feature tiles, one subwarp each, grid-stride: a hub row is cut
//    into segments whose partial results meet in a second kernel, in
//    segment order, so results do not depend on scheduling;
//  - each lane stages one entry of a chunk (its column and edge), the
//    subwarp broadcasts them with shuffles, and the loads of four entries
//    are issued before their arithmetic (one memory latency per four);
//  - a lane owns kVec consecutive features: 16-byte loads of u and e where
//    they carry every feature and are aligned, one scalar where an operand
//    repeats over the features (a weight per edge or per head);
//  - Max/Min keep the winning entry beside each running extreme (strictly
//    better replaces, so the first of equal messages stays; the first NaN
//    wins and stays: ops/message_math.hpp's rule).
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/bfloat16.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/cuda/spmm_kernel.cuh"
#include "ops/message_math.hpp"
#include "ops/message_passing.hpp"

namespace sgnn::ops::gspmm_cuda {

// One operand in device memory, float32 or bfloat16 (one pointer set, or
// none: an absent operand reads 0), with its layout in the output's features.
struct DeviceOperand {
  const float* f32 = nullptr;
  const bfloat16* bf16 = nullptr;
  int64_t row_stride = 0;
  int64_t head_stride = 0;
  int64_t feature_stride = 0;

  __device__ __forceinline__ bool present() const { return f32 != nullptr || bf16 != nullptr; }
  __device__ __forceinline__ int64_t at(int64_t item, int64_t head, int64_t feature) const {
    return item * row_stride + head * head_stride + feature * feature_stride;
  }
  __device__ __forceinline__ float scalar(int64_t offset) const {
    if (f32) return __ldg(f32 + offset);
    if (bf16) return load_float_readonly(bf16 + offset);
    return 0.0f;
  }
  // kVec elements from `offset`: consecutive where the operand carries every
  // feature (16-byte aligned, the host checked), else one repeated.
  template <int kVec>
  __device__ __forceinline__ void load(int64_t offset, float (&v)[kVec]) const {
    if constexpr (kVec == 1) {
      v[0] = scalar(offset);
    } else {
      if (feature_stride == 0 || !present()) {
        const float value = scalar(offset);
#pragma unroll
        for (int i = 0; i < kVec; ++i) v[i] = value;
      } else if (f32) {
#pragma unroll
        for (int i = 0; i < kVec; i += 4) {
          const float4 q = __ldg(reinterpret_cast<const float4*>(f32 + offset + i));
          v[i] = q.x; v[i + 1] = q.y; v[i + 2] = q.z; v[i + 3] = q.w;
        }
      } else {
        // bfloat16: 4 per 8-byte access, element 2k the low half of word k.
#pragma unroll
        for (int i = 0; i < kVec; i += 4) {
          const uint2 q = __ldg(reinterpret_cast<const uint2*>(bf16 + offset + i));
          v[i] = __uint_as_float(q.x << 16);
          v[i + 1] = __uint_as_float(q.x & 0xFFFF0000u);
          v[i + 2] = __uint_as_float(q.y << 16);
          v[i + 3] = __uint_as_float(q.y & 0xFFFF0000u);
        }
      }
    }
  }
};

// The device view of an operand (ops/message_passing.hpp's layout).
inline DeviceOperand device_operand(const Tensor& tensor, const FeatureLayout& layout) {
  DeviceOperand operand;
  if (tensor.defined()) {
    if (tensor.dtype() == DType::BFloat16) operand.bf16 = tensor.data<bfloat16>();
    else operand.f32 = tensor.data<float>();
  }
  operand.row_stride = layout.row_stride;
  operand.head_stride = layout.head_stride;
  operand.feature_stride = layout.feature_stride;
  return operand;
}

// Whether an operand allows vec-wide loads: absent, repeated over the
// features, or carrying them with every vector 16-byte (float) or 8-byte
// (bfloat16) aligned.
inline bool vector_ready(const Tensor& tensor, const FeatureLayout& layout, int vec) {
  if (!tensor.defined() || layout.feature_stride == 0) return true;
  return sparse_cuda::aligned16(tensor.raw_data()) && layout.row_stride % vec == 0 && layout.head_stride % vec == 0;
}

template <typename T>
struct GspmmKernelArguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices = nullptr;
  sparse_cuda::SegmentList segments;
  MessageKind message = MessageKind::CopyU;
  float sign = 1.0f;     // Max: +1, Min: −1 (extreme kernels only)
  bool average = false;  // Mean: an unsplit row's sum times 1 / its entries
  int heads = 1;
  int64_t features = 1;  // per head
  int64_t tiles = 1;     // feature tiles per (segment, head)
  DeviceOperand u, e;
  const int32_t* edge_map = nullptr;  // entry k's edge data at edge_map[k], or null
  T* out = nullptr;
  int32_t* argument = nullptr;        // extreme kernels: [num_rows, width]
  float* partial_values = nullptr;    // [split_segments, width]
  int32_t* partial_arguments = nullptr;
};

template <typename T, bool kExtreme, int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) gspmm_kernel(GspmmKernelArguments<T> args) {
  constexpr int kBatch = 4;  // entries whose loads are issued before their arithmetic
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;
  const int64_t segment_heads = args.segments.count * args.heads;
  const int64_t items = segment_heads * args.tiles;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::ItemPlace<int64_t> place =
        sparse_cuda::item_place(item, args.tiles, int64_t{args.heads}, segment_heads, false);
    const int64_t tile = place.tile;
    const int head = static_cast<int>(place.head);
    const int64_t segment = place.segment;
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;
    const int64_t feature = tile * (kSub * kVec) + lane * kVec;
    const bool lane_active = feature < args.features;
    const int64_t lane_feature = lane_active ? feature : 0;  // inactive lanes read feature 0, never store
    const int64_t u_base = args.u.at(0, head, lane_feature);
    const int64_t e_base = args.e.at(0, head, lane_feature);

    float acc[kVec];
    int32_t winner[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      acc[v] = 0.0f;
      winner[v] = -1;
    }
    for (int64_t chunk = range.begin; chunk < range.end; chunk += kSub) {
      const int64_t position = chunk + lane;
      const bool inside = position < range.end;
      const int32_t column = inside ? __ldg(args.indices + position) : 0;
      const int64_t edge = !inside ? 0 : args.edge_map ? int64_t{__ldg(args.edge_map + position)} : position;
      const int staged = range.end - chunk < kSub ? static_cast<int>(range.end - chunk) : kSub;
      for (int first = 0; first < staged; first += kBatch) {
        float u_values[kBatch][kVec];
        float e_values[kBatch][kVec];
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
          // Slots past the staged entries read entry `first` again (it exists) and are skipped below.
          const int source = first + k < staged ? first + k : first;
          const int64_t c = __shfl_sync(mask, int64_t{column}, source, kSub);
          const int64_t d = __shfl_sync(mask, edge, source, kSub);
          args.u.template load<kVec>(c * args.u.row_stride + u_base, u_values[k]);
          args.e.template load<kVec>(d * args.e.row_stride + e_base, e_values[k]);
        }
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
          if (first + k >= staged) break;
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            const float message = apply_message(args.message, u_values[k][v], e_values[k][v]);
            if constexpr (kExtreme) {
              if (replaces(message, acc[v], winner[v] >= 0, args.sign)) {
                acc[v] = message;
                winner[v] = static_cast<int32_t>(chunk + first + k);
              }
            } else {
              acc[v] += message;
            }
          }
        }
      }
    }
    if (!lane_active) continue;
    const int64_t offset = head * args.features + feature;
    const int64_t row = range.row;
    if (segment < args.segments.split_segments) {  // a piece of a split row: its partials, combined later
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (feature + v >= args.features) break;
        args.partial_values[segment * width + offset + v] = acc[v];
        if constexpr (kExtreme) args.partial_arguments[segment * width + offset + v] = winner[v];
      }
      continue;
    }
    float factor = 1.0f;
    if (!kExtreme && args.average && range.end > range.begin) {
      factor = 1.0f / static_cast<float>(range.end - range.begin);
    }
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      if (feature + v >= args.features) break;
      const int64_t at = row * width + offset + v;
      if constexpr (kExtreme) {
        args.out[at] = store_as<T>(winner[v] < 0 ? 0.0f : acc[v]);
        args.argument[at] = winner[v];
      } else {
        args.out[at] = store_as<T>(acc[v] * factor);
      }
    }
  }
}

// Split rows: their segments' partials combined in segment order, one thread
// per output element (coalesced over the features): sums (× 1 / entries for
// Mean) or the first strictly best extreme.
template <typename T, bool kExtreme>
__global__ void gspmm_combine_kernel(GspmmKernelArguments<T> args, const int32_t* __restrict__ split_rows,
                                     const int64_t* __restrict__ split_offsets, int64_t count) {
  const int64_t width = args.heads * args.features;
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    const int64_t j = i - k * width;
    const int64_t row = split_rows[k];
    float acc = 0.0f;
    int32_t winner = -1;
    for (int64_t s = split_offsets[k]; s < split_offsets[k + 1]; ++s) {
      const float value = args.partial_values[s * width + j];
      if constexpr (kExtreme) {
        const int32_t candidate = args.partial_arguments[s * width + j];
        if (candidate >= 0 && replaces(value, acc, winner >= 0, args.sign)) {
          acc = value;
          winner = candidate;
        }
      } else {
        acc += value;
      }
    }
    if constexpr (kExtreme) {
      args.out[row * width + j] = store_as<T>(winner < 0 ? 0.0f : acc);
      args.argument[row * width + j] = winner;
    } else {
      const int64_t length = args.indptr[row + 1] - args.indptr[row];
      args.out[row * width + j] = store_as<T>(args.average && length > 0 ? acc * (1.0f / static_cast<float>(length)) : acc);
    }
  }
}

// The tile of one launch: kVec ∈ {1, 16 bytes of T} features per lane, kSub ∈ {4, 8, 32} lanes.
struct GspmmTile {
  int vec = 1;
  int sub = 32;
};

template <typename T, bool kExtreme, int kVec>
void launch_sub(int sub, const GspmmKernelArguments<T>& args, Device device) {
  const int64_t items = args.segments.count * args.heads * args.tiles;
  const auto go = [&](auto kernel, int lanes) {
    kernel<<<sparse_cuda::subwarp_blocks(items, lanes, device), sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(
        args);
    SGNN_CUDA_CHECK_LAUNCH("gspmm_kernel");
  };
  if (sub == 4) return go(gspmm_kernel<T, kExtreme, kVec, 4>, 4);
  if (sub == 8) return go(gspmm_kernel<T, kExtreme, kVec, 8>, 8);
  go(gspmm_kernel<T, kExtreme, kVec, 32>, 32);
}

// Launches the main kernel and, where the graph has split rows, the combine kernel.
template <typename T>
void launch_gspmm_of(const GspmmTile& tile, bool extreme, const GspmmKernelArguments<T>& args,
                     const SparsePlan& plan, Device device) {
  constexpr int kWide = 16 / static_cast<int>(sizeof(T));
  if (extreme) {
    if (tile.vec == kWide) launch_sub<T, true, kWide>(tile.sub, args, device);
    else launch_sub<T, true, 1>(tile.sub, args, device);
  } else {
    if (tile.vec == kWide) launch_sub<T, false, kWide>(tile.sub, args, device);
    else launch_sub<T, false, 1>(tile.sub, args, device);
  }
  if (plan.num_split_rows == 0) return;
  const LaunchShape shape = elementwise_launch_shape(plan.num_split_rows * args.heads * args.features, device);
  const int32_t* rows = plan.split_rows.data<int32_t>();
  const int64_t* offsets = plan.split_offsets.data<int64_t>();
  if (extreme) {
    gspmm_combine_kernel<T, true><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(args, rows, offsets,
                                                                                           plan.num_split_rows);
  } else {
    gspmm_combine_kernel<T, false><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(args, rows, offsets,
                                                                                            plan.num_split_rows);
  }
  SGNN_CUDA_CHECK_LAUNCH("gspmm_combine_kernel");
}

// Max/Min of copy_u or of u_mul_e with one weight per entry or per head,
// values only: the structure of the tuned SpMM's light tile
// (ops/cuda/spmm_kernel.cuh) with a maximum where it has a sum. Each lane
// stages one entry (B's row offset and its weight), the subwarp gathers the
// staged rows eight at a time, all eight loads issued before the first
// maximum. Min is the maximum of the negated messages; a NaN message wins
// and stays (ops/message_math.hpp's rule), and a row without entries stores
// 0. No winner is kept:
// the backward finds it again (gspmm_kernel over the same entries), so the
// forward moves what the sum moves.
// The running maximum after `value`: a NaN takes over and stays. One
// instruction (PTX max.NaN, sm_80 on): the select it replaces took three
// comparisons and a select per element against the sum's one fma, which made
// the twin issue-bound where the gathered rows sit in L1/L2 (meshes). A NaN
// result is the canonical NaN, and the maximum of -0 and +0 is +0 (equal
// under ==; the backward finds the winner from the messages, not from this).
__device__ __forceinline__ float extreme_step(float best, float value) {
  float result;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(result) : "f"(best), "f"(value));
  return result;
}

// *address = the maximum (or the minimum) of itself and value, atomically: a
// split row's segments meet in the output this way, as the sum's add into C
// (the output starts at -inf or +inf, sparse_device.cuh's fill). A float's
// bits order as int32 where the sign is clear and in reverse as uint32 where
// it is set, so one integer atomic of the matching kind takes the float
// maximum (minimum) of any two floats; a NaN is given the bits that win
// (0x7fffffff, 0xffffffff) and stays. Order-independent: the result does not
// depend on which segment arrives first. The partials and the combining pass
// they need ran 1.2-1.3x the sum SpMM on power-law graphs, where thousands of
// rows split into a few segments each (H200, docs/kernels.md).
__device__ __forceinline__ void atomic_extreme(float* address, float value, bool minimum) {
  unsigned bits = __float_as_uint(value);
  if (value != value) bits = minimum ? 0xffffffffu : 0x7fffffffu;
  const bool negative = (bits >> 31) != 0;
  if (negative == minimum) {  // the larger magnitude on this side of zero wins
    if (minimum) atomicMax(reinterpret_cast<unsigned*>(address), bits);
    else atomicMax(reinterpret_cast<int*>(address), static_cast<int>(bits));
  } else {  // the smaller magnitude wins, and any value of the other sign beats it
    if (minimum) atomicMin(reinterpret_cast<int*>(address), static_cast<int>(bits));
    else atomicMin(reinterpret_cast<unsigned*>(address), bits);
  }
}

template <typename T>
struct ExtremeArguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices = nullptr;
  sparse_cuda::SegmentList segments;
  int heads = 1;
  int64_t features = 1;  // per head
  int64_t tiles = 1;
  const T* u = nullptr;  // [n_cols, heads · features]
  const float* weights = nullptr;  // u_mul_e: [nnz · weight_heads] float, or
  const bfloat16* bf16_weights = nullptr;  // bfloat16; both null: copy_u
  int weight_heads = 1;  // 1: one weight per entry; heads: one per head
  float sign = 1.0f;
  T* out = nullptr;
  // bfloat16 out: [split_segments, width], sign-space maxima of non-empty
  // segments, combined after the kernel; float out: null (atomic_extreme).
  float* partials = nullptr;
  bool slice_major = false;   // item order: all (segment, head) of tile 0 first, then tile 1, … (the sum's slices)
};

// The values-only kernel's body, counting in Index: int64_t in the heavy
// kernel, int32_t in the light one (the graph and width fit 32 bits), whose
// offsets, shuffles and products take half the registers. A lane holds
// kRepeat accesses kSub · kVec columns apart (the sum's RoDe-shaped tile of
// 8 lanes × 2 float4 at width 128, spmm_kernel.cuh), gathering half as many
// entries a batch.
template <typename T, int kVec, int kSub, typename Index, int kRepeat = 1>
__device__ __forceinline__ void extreme_segments(const ExtremeArguments<T>& args) {
  constexpr int kBatch = 8 / kRepeat;
  constexpr int kStride = kSub * kVec;  // between a lane's accesses
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const auto width = static_cast<Index>(args.heads * args.features);
  const auto features = static_cast<Index>(args.features);
  const auto heads = static_cast<Index>(args.heads);
  const auto tiles = static_cast<Index>(args.tiles);
  const bool weighted = args.weights != nullptr || args.bf16_weights != nullptr;
  const Index segment_heads = static_cast<Index>(args.segments.count) * heads;
  const Index items = segment_heads * tiles;
  const auto stride = static_cast<Index>(sparse_cuda::subwarp_count(kSub));
  // The step is taken only where it stays below `items` (no overflow past 2^31 in 32 bits).
  for (auto item = static_cast<Index>(sparse_cuda::global_subwarp(kSub)); item < items;
       item = items - item > stride ? item + stride : items) {
    const auto [tile, head, segment] = sparse_cuda::item_place(item, tiles, heads, segment_heads, args.slice_major);
    Index row, begin, end;
    if constexpr (sizeof(Index) == 4) {
      const sparse_cuda::NarrowSegmentRange range =
          sparse_cuda::narrow_segment_range(args.segments, args.indptr.narrow, segment);
      if (range.skip) continue;
      row = range.row;
      begin = range.begin;
      end = range.end;
    } else {
      const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, segment);
      if (range.skip) continue;
      row = range.row;
      begin = range.begin;
      end = range.end;
    }
    const Index feature = tile * (kStride * kRepeat) + lane * kVec;
    // An access past the head's width reads its column 0 and is not stored.
    bool active[kRepeat];
    const T* b[kRepeat];
    float acc[kRepeat][kVec];
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      active[r] = feature + r * kStride < features;
      b[r] = args.u + head * features + (active[r] ? feature + r * kStride : 0);
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[r][v] = -INFINITY;
    }
    for (Index chunk = begin; chunk < end; chunk += kSub) {
      const Index position = chunk + lane;
      const bool inside = position < end;
      const Index offset = inside ? static_cast<Index>(__ldg(args.indices + position)) * width : 0;
      float weight = args.sign;
      if (weighted && inside) {
        const Index at = position * args.weight_heads + (args.weight_heads > 1 ? head : 0);
        weight *= args.weights ? __ldg(args.weights + at) : load_float_readonly(args.bf16_weights + at);
      }
      const int staged = end - chunk < kSub ? static_cast<int>(end - chunk) : kSub;
      for (int first = 0; first < staged; first += kBatch) {
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
          // A slot past the staged entries reads u's row 0 (it exists where a
          // row has entries), as the sum's light tile does, and is skipped.
          const Index at = __shfl_sync(mask, offset, first + k, kSub);
          const float w = __shfl_sync(mask, weight, first + k, kSub);
          float loaded[kRepeat][kVec];
#pragma unroll
          for (int r = 0; r < kRepeat; ++r) spmm_cuda::Vector<T, kVec>::load(b[r] + at, loaded[r]);
          if (first + k < staged) {
#pragma unroll
            for (int r = 0; r < kRepeat; ++r) {
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] = extreme_step(acc[r][v], w * loaded[r][v]);
            }
          }
        }
      }
    }
    // One access per lane and repeat, as the sum stores (a lane's kVec
    // features lie inside the head: a vector tile needs features % kVec ==
    // 0). Scalar stores, four per float lane, made the kernel 1.33x the sum
    // SpMM where the output is a third of the bytes (degree 2, width 128, H200).
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      if (!active[r]) continue;
      const Index at = head * features + feature + r * kStride;
      if (segment < static_cast<Index>(args.segments.split_segments)) {
        if constexpr (std::is_same_v<T, float>) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            atomic_extreme(args.out + row * width + at + v, args.sign * acc[r][v], args.sign < 0);
          }
        } else {
          spmm_cuda::Vector<float, kVec>::store(args.partials + segment * width + at, acc[r]);
        }
      } else {
        float value[kVec];
#pragma unroll
        for (int v = 0; v < kVec; ++v) value[v] = end == begin ? 0.0f : args.sign * acc[r][v];
        spmm_cuda::Vector<T, kVec>::store(args.out + row * width + at, value);
      }
    }
  }
}

template <typename T, int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) gspmm_extreme_kernel(ExtremeArguments<T> args) {
  extreme_segments<T, kVec, kSub, int64_t>(args);
}

// 32-bit counting in 32 registers (kBlocks 8), so that 64 warps fit an SM
// (the heavy kernel takes 48: 40 warps), as the sum's light tiles: more
// gathers in flight where they wait on DRAM. Float only, as the sum's:
// bfloat16's 8-wide rows spilled 16-56 bytes a thread under the cap (ptxas
// -v); float's 16 and 32 lanes 8 bytes, 8 lanes none (40 while split rows
// wrote partials). 8 lanes also run under 40 and 64 registers (kBlocks 6
// and 4), as the sum's narrow light twins do, and the timing picks.
template <typename T, int kVec, int kSub, int kBlocks = 8, int kRepeat = 1>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, kBlocks) gspmm_extreme_light_kernel(ExtremeArguments<T> args) {
  extreme_segments<T, kVec, kSub, int32_t, kRepeat>(args);
}

// Split rows in bfloat16: the maximum of their segments' partial maxima, a warp per
// output element, its lanes striding over the segments (a million-entry hub
// row has a thousand of them: one thread each made this the kernel's tail,
// 1.93x the sum SpMM on the H200). The maximum, and whether a NaN is among
// them, do not depend on the order.
template <typename T>
__global__ void gspmm_extreme_combine_kernel(ExtremeArguments<T> args, const int32_t* __restrict__ split_rows,
                                             const int64_t* __restrict__ split_offsets, int64_t count) {
  const int64_t width = args.heads * args.features;
  const int64_t total = count * width;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
  for (int64_t i = grid_stride_begin() / 32; i < total; i += warps) {
    const int64_t k = i / width;
    const int64_t j = i - k * width;
    float acc = -INFINITY;  // a split row has entries
    for (int64_t s = split_offsets[k] + lane; s < split_offsets[k + 1]; s += 32) {
      acc = extreme_step(acc, args.partials[s * width + j]);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc = extreme_step(acc, __shfl_xor_sync(0xffffffffu, acc, offset));
    if (lane == 0) args.out[int64_t{split_rows[k]} * width + j] = store_as<T>(args.sign * acc);
  }
}

// One way to run the values-only kernel: its lanes and vector (tile), heavy
// or light, and the order of its work items: the plan's or rows in graph
// order (by_row), and a row's tiles side by side or in slices (all rows'
// first tile, then their second, ...: the sum's slices, one subwarp per
// item). Its name is "<heavy|light|light40|light64> <lanes> [slices ]<plan|rows>"
// (light: 32 registers).
struct ExtremeLaunch {
  GspmmTile tile;
  bool light = false;
  bool by_row = false;
  bool slices = false;
  int light_registers = 32;  // 32, 40 or 64: a light 8-lane kernel's budget
  int repeat = 1;            // accesses a lane: 2 only for the light 8 lanes under 64 registers
};

template <typename T>
void launch_extreme_of(const ExtremeLaunch& launch, ExtremeArguments<T> args, const SparsePlan& plan,
                       Device device) {
  constexpr int kWide = 16 / static_cast<int>(sizeof(T));
  args.segments = sparse_cuda::segment_list(plan, launch.by_row);
  const int64_t tile_width = int64_t{launch.tile.vec} * launch.tile.sub * launch.repeat;
  args.tiles = (args.features + tile_width - 1) / tile_width;
  args.slice_major = launch.slices;
  const int64_t items = args.segments.count * args.heads * args.tiles;
  const auto go = [&](auto kernel, int lanes) {
    const unsigned blocks = launch.slices ? sparse_cuda::item_blocks(items, lanes)
                                          : sparse_cuda::subwarp_blocks(items, lanes, device);
    kernel<<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
    SGNN_CUDA_CHECK_LAUNCH("gspmm_extreme_kernel");
  };
  const auto by_sub = [&](auto vec) {
    constexpr int kVec = decltype(vec)::value;
    if (launch.light) {
      if constexpr (kVec == kWide && std::is_same_v<T, float>) {
        if (launch.tile.sub == 8) {
          if (launch.light_registers == 40) return go(gspmm_extreme_light_kernel<T, kVec, 8, 6>, 8);
          if (launch.light_registers == 64 && launch.repeat == 2) {
            return go(gspmm_extreme_light_kernel<T, kVec, 8, 4, 2>, 8);
          }
          if (launch.light_registers == 64) return go(gspmm_extreme_light_kernel<T, kVec, 8, 4>, 8);
          return go(gspmm_extreme_light_kernel<T, kVec, 8>, 8);
        }
        if (launch.tile.sub == 16) return go(gspmm_extreme_light_kernel<T, kVec, 16>, 16);
        return go(gspmm_extreme_light_kernel<T, kVec, 32>, 32);
      }
    }
    if (launch.tile.sub == 4) return go(gspmm_extreme_kernel<T, kVec, 4>, 4);
    if (launch.tile.sub == 8) return go(gspmm_extreme_kernel<T, kVec, 8>, 8);
    go(gspmm_extreme_kernel<T, kVec, 32>, 32);
  };
  const int64_t width = args.heads * args.features;
  if constexpr (std::is_same_v<T, float>) {  // split rows meet in the output (atomic_extreme)
    if (plan.num_split_rows > 0) {
      const LaunchShape shape = elementwise_launch_shape(plan.num_split_rows * width, device);
      sparse_cuda::fill_split_rows_kernel<float><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
          plan.split_rows.data<int32_t>(), plan.num_split_rows, width, args.sign > 0 ? -INFINITY : INFINITY,
          args.out);
      SGNN_CUDA_CHECK_LAUNCH("fill_split_rows_kernel");
    }
  }
  if (launch.tile.vec == kWide) by_sub(std::integral_constant<int, kWide>{});
  else by_sub(std::integral_constant<int, 1>{});
  if (plan.num_split_rows == 0 || std::is_same_v<T, float>) return;
  const LaunchShape shape = elementwise_launch_shape(plan.num_split_rows * width * 32, device);
  gspmm_extreme_combine_kernel<T><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      args, plan.split_rows.data<int32_t>(), plan.split_offsets.data<int64_t>(), plan.num_split_rows);
  SGNN_CUDA_CHECK_LAUNCH("gspmm_extreme_combine_kernel");
}

// The bfloat16 launches live in their own translation unit (gspmm_bf16.cu).
void launch_gspmm(const GspmmTile& tile, bool extreme, const GspmmKernelArguments<bfloat16>& args,
                  const SparsePlan& plan, Device device);
void launch_extreme(const ExtremeLaunch& launch, const ExtremeArguments<bfloat16>& args, const SparsePlan& plan,
                    Device device);

}  // namespace sgnn::ops::gspmm_cuda
