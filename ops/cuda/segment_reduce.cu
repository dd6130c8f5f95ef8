// CUDA segment reductions (ops/gather_scatter_backend.hpp): segment_reduce,
// the sorted path of scatter, g-SpMM's copy_e.
//  - Work items are the segments of the CSR's launch plan
//    (ops/sparse_plan.hpp), as for SpMM: a segment longer than the plan's
//    segment length (128-1024 positions) is cut into pieces, so one hub
//    segment of 100,000 rows becomes ~100 items instead of one serial tail;
//    the pieces store float partials (and winning rows) that a second
//    kernel combines per split segment (piece lanes, then a fixed tree in
//    shared memory): deterministic, no atomics.
//  - One subwarp per (item, feature tile): feature_lanes lanes cover a row
//    with 16-byte loads (4 floats, 8 bfloat16s) where the width and the
//    pointers allow, else scalars; entry_lanes lanes (feature_lanes ·
//    entry_lanes ≤ 32) take interleaved positions of the item, so a narrow
//    row (a scalar per edge, 16 features) still gives each warp 32 loads
//    of consecutive memory and long items many lanes. Each lane issues the
//    loads of 4 positions before combining them (memory-level
//    parallelism), then the entry lanes are combined by an xor butterfly
//    (every lane of the subwarp ends with the same bits).
//  - Sums in float in a fixed order (per lane, then the butterfly, then the
//    partials' lanes and tree); a bfloat16 output is rounded once. Max and Min
//    follow ops/segment_reduce_math.hpp, a total order on (value, row), so
//    any combination order gives the CPU's winner bit for bit.
//  - Backward of Sum and Mean: the same items write the gradient row to
//    every position (divided by the segment's length for Mean); no
//    partials. Backward of Max and Min: gather_rows.cu.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/cuda/launch.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/cuda/spmm_kernel.cuh"
#include "ops/gather_scatter_backend.hpp"
#include "ops/segment_reduce_math.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using spmm_cuda::Vector;

enum Combine : int { kSum = 0, kMax = 1, kMin = 2 };

template <typename T>
struct SegmentArguments {
  sparse_cuda::Offsets offsets;       // the CSR's, [S + 1]
  sparse_cuda::SegmentList segments;  // the plan's items, split rows' pieces first
  const int32_t* row_map;             // position -> src row, or null (the position itself)
  const T* src;
  T* out;
  int32_t* argument;           // [S, width] winning rows (Max, Min), else null
  float* partials;             // [split pieces, width] (split rows only)
  int32_t* partial_arguments;  // [split pieces, width] (Max, Min with split rows)
  int64_t width;
  int64_t tiles;  // feature tiles per item
  int feature_shift;  // log2(feature_lanes)
  int lanes;          // feature_lanes · entry_lanes: the subwarp
  bool mean;
};

__device__ __forceinline__ unsigned runtime_subwarp_mask(int lanes) {
  if (lanes == 32) return 0xffffffffu;
  const unsigned lane = threadIdx.x & 31u;
  return ((1u << lanes) - 1u) << (lane & ~static_cast<unsigned>(lanes - 1));
}

// kVec elements of T as loaded: one 16-byte unit (4 floats, 8 bfloat16s),
// or one element. Kept packed until they are combined, so that 4 positions
// in flight cost a bfloat16 lane 16 registers, not 32.
template <typename T, int kVec>
struct Packed {
  static_assert(kVec * sizeof(T) == 16, "a 16-byte unit");
  uint4 bits;
  __device__ __forceinline__ void load(const T* p) { bits = __ldg(reinterpret_cast<const uint4*>(p)); }
  __device__ __forceinline__ float operator[](int v) const {
    const unsigned words[4] = {bits.x, bits.y, bits.z, bits.w};
    if constexpr (sizeof(T) == 4) return __uint_as_float(words[v]);
    else return __uint_as_float(v % 2 == 0 ? words[v / 2] << 16 : words[v / 2] & 0xFFFF0000u);
  }
};
template <typename T>
struct Packed<T, 1> {
  float value;
  __device__ __forceinline__ void load(const T* p) { value = load_float_readonly(p); }
  __device__ __forceinline__ float operator[](int) const { return value; }
};

// Combines a candidate (value, row) into the lane's running result.
template <int kCombine>
__device__ __forceinline__ void combine(float& acc, int32_t& best, float value, int32_t row) {
  if constexpr (kCombine == kSum) {
    acc += value;
  } else if (wins_over<kCombine == kMax>(value, row, acc, best)) {
    acc = value;
    best = row;
  }
}

// This thread's place in its subwarp: which 16-byte unit of a row (feature
// lane) and which positions of an item (entry lane, every entry_lanes-th).
struct Lanes {
  int lanes;
  int feature_lane;
  int entry_lane;
  int entry_lanes;
  __device__ __forceinline__ Lanes(int subwarp, int feature_shift)
      : lanes(subwarp),
        feature_lane(static_cast<int>(threadIdx.x) & ((1 << feature_shift) - 1)),
        entry_lane((static_cast<int>(threadIdx.x) & (subwarp - 1)) >> feature_shift),
        entry_lanes(subwarp >> feature_shift) {}
};

// Work item `item`: its segment (a plan item), that segment's positions and
// this lane's first feature.
struct Item {
  int64_t segment;
  sparse_cuda::SegmentRange range;
  int64_t feature;
};
template <typename T, int kVec>
__device__ __forceinline__ Item item_at(const SegmentArguments<T>& args, const Lanes& lanes, int64_t item) {
  const int64_t segment = item / args.tiles;
  const int64_t tile = item - segment * args.tiles;
  return {segment, sparse_cuda::segment_range(args.segments, args.offsets, segment),
          ((tile << args.feature_shift) + lanes.feature_lane) * kVec};
}

template <typename T, int kVec, int kCombine>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) segment_reduce_kernel(SegmentArguments<T> args) {
  const Lanes lanes(args.lanes, args.feature_shift);
  const int entry_lane = lanes.entry_lane;
  const int entry_lanes = lanes.entry_lanes;
  const unsigned mask = runtime_subwarp_mask(args.lanes);
  const int64_t items = args.segments.count * args.tiles;
  for (int64_t item = sparse_cuda::global_subwarp(args.lanes); item < items;
       item += sparse_cuda::subwarp_count(args.lanes)) {
    const auto [segment, range, feature] = item_at<T, kVec>(args, lanes, item);
    const bool active = feature < args.width;
    float acc[kVec];
    int32_t best[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      acc[v] = 0.0f;
      best[v] = -1;
    }
    for (int64_t first = range.begin + entry_lane; first < range.end; first += 4 * entry_lanes) {
      Packed<T, kVec> loaded[4];
      int64_t rows[4];
      bool inside[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int64_t position = first + k * entry_lanes;
        inside[k] = active && position < range.end;
        rows[k] = 0;
        if (inside[k]) {
          rows[k] = args.row_map ? int64_t{__ldg(args.row_map + position)} : position;
          loaded[k].load(args.src + rows[k] * args.width + feature);
        }
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (!inside[k]) continue;
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
          combine<kCombine>(acc[v], best[v], loaded[k][v], static_cast<int32_t>(rows[k]));
        }
      }
    }
    for (int offset = 1 << args.feature_shift; offset < args.lanes; offset <<= 1) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        const float other = __shfl_xor_sync(mask, acc[v], offset);
        int32_t other_row = 0;
        if constexpr (kCombine != kSum) other_row = __shfl_xor_sync(mask, best[v], offset);
        combine<kCombine>(acc[v], best[v], other, other_row);
      }
    }
    if (entry_lane != 0 || !active) continue;
    if (segment < args.segments.split_segments) {
      float* partial = args.partials + segment * args.width + feature;
#pragma unroll
      for (int v = 0; v < kVec; ++v) partial[v] = acc[v];
      if constexpr (kCombine != kSum) {
        int32_t* partial_argument = args.partial_arguments + segment * args.width + feature;
#pragma unroll
        for (int v = 0; v < kVec; ++v) partial_argument[v] = best[v];
      }
      continue;
    }
    const int64_t length = range.end - range.begin;
    float value[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      if constexpr (kCombine == kSum) {
        value[v] = args.mean && length > 0 ? acc[v] / static_cast<float>(length) : acc[v];
      } else {
        value[v] = best[v] < 0 ? 0.0f : acc[v];
      }
    }
    Vector<T, kVec>::store(args.out + range.row * args.width + feature, value);
    if constexpr (kCombine != kSum) {
      int32_t* argument = args.argument + range.row * args.width + feature;
#pragma unroll
      for (int v = 0; v < kVec; ++v) argument[v] = best[v];
    }
  }
}

// out[split row k, j] from its pieces' partials: a block of 32 features ×
// piece_lanes (blockDim.y) per (split row, feature tile); each thread takes
// every piece_lanes-th piece in order, then a fixed tree in shared memory
// combines the piece lanes. A hub row of a million entries is ~8000 pieces:
// one thread walking them all (SpMM's reduce_split_rows_kernel) would be a
// serial tail of ~8000 dependent loads.
constexpr int kCombineFeatures = 32;
constexpr int kCombinePieceLanes = 32;

template <typename T, int kCombine>
__global__ void __launch_bounds__(kCombineFeatures* kCombinePieceLanes)
    combine_split_rows_kernel(SegmentArguments<T> args, const int32_t* __restrict__ split_rows,
                              const int64_t* __restrict__ split_offsets, int64_t count) {
  __shared__ float shared_acc[kCombineFeatures * kCombinePieceLanes];
  __shared__ int32_t shared_best[kCombineFeatures * kCombinePieceLanes];
  const int piece_lanes = static_cast<int>(blockDim.y);
  const int slot = static_cast<int>(threadIdx.y) * kCombineFeatures + static_cast<int>(threadIdx.x);
  const int64_t tiles = (args.width + kCombineFeatures - 1) / kCombineFeatures;
  for (int64_t block = blockIdx.x; block < count * tiles; block += gridDim.x) {
    const int64_t k = block / tiles;
    const int64_t j = (block - k * tiles) * kCombineFeatures + threadIdx.x;
    float acc = 0.0f;
    int32_t best = -1;
    if (j < args.width) {
#pragma unroll 4
      for (int64_t piece = split_offsets[k] + threadIdx.y; piece < split_offsets[k + 1]; piece += piece_lanes) {
        int32_t row = 0;
        if constexpr (kCombine != kSum) row = args.partial_arguments[piece * args.width + j];
        combine<kCombine>(acc, best, args.partials[piece * args.width + j], row);
      }
    }
    shared_acc[slot] = acc;
    shared_best[slot] = best;
    __syncthreads();
    for (int stride = piece_lanes / 2; stride > 0; stride /= 2) {
      if (static_cast<int>(threadIdx.y) < stride) {
        combine<kCombine>(acc, best, shared_acc[slot + stride * kCombineFeatures],
                          shared_best[slot + stride * kCombineFeatures]);
        shared_acc[slot] = acc;
        shared_best[slot] = best;
      }
      __syncthreads();
    }
    if (threadIdx.y == 0 && j < args.width) {
      const int64_t row = split_rows[k];
      if constexpr (kCombine == kSum) {
        const int64_t length = args.offsets[row + 1] - args.offsets[row];
        args.out[row * args.width + j] = store_as<T>(args.mean ? acc / static_cast<float>(length) : acc);
      } else {
        args.out[row * args.width + j] = store_as<T>(best < 0 ? 0.0f : acc);
        args.argument[row * args.width + j] = best;
      }
    }
  }
}

// grad_src[row(p), :] = grad_out[s, :] (/ length for Mean) over the items of
// every segment, split pieces included (they write disjoint positions).
template <typename T, int kVec>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) segment_spread_kernel(SegmentArguments<T> args) {
  const Lanes lanes(args.lanes, args.feature_shift);
  const int64_t items = args.segments.count * args.tiles;
  for (int64_t item = sparse_cuda::global_subwarp(args.lanes); item < items;
       item += sparse_cuda::subwarp_count(args.lanes)) {
    const Item at = item_at<T, kVec>(args, lanes, item);
    const sparse_cuda::SegmentRange& range = at.range;
    const int64_t feature = at.feature;
    if (feature >= args.width || range.begin >= range.end) continue;
    float value[kVec];
    Vector<T, kVec>::load(args.src + range.row * args.width + feature, value);
    if (args.mean) {
      const float length = static_cast<float>(args.offsets[range.row + 1] - args.offsets[range.row]);
#pragma unroll
      for (int v = 0; v < kVec; ++v) value[v] = value[v] / length;
    }
    for (int64_t position = range.begin + lanes.entry_lane; position < range.end; position += lanes.entry_lanes) {
      const int64_t row = args.row_map ? int64_t{__ldg(args.row_map + position)} : position;
      Vector<T, kVec>::store(args.out + row * args.width + feature, value);
    }
  }
}

// The lanes of a subwarp: feature lanes to cover a row's vectors (at most
// 32, more tiles beyond), entry lanes for about 4 positions each on an
// average item, within 32 lanes in all.
struct LaneShape {
  int feature_shift;
  int lanes;
  int64_t tiles;
};

LaneShape lane_shape(int64_t vectors, double mean_item_length) {
  const int feature_lanes = sparse_cuda::next_power_of_two(std::min<int64_t>(vectors, 32), 32);
  const auto wanted = static_cast<int64_t>(mean_item_length / 4.0 + 0.999);
  const int entry_lanes = sparse_cuda::next_power_of_two(std::max<int64_t>(wanted, 1), 32 / feature_lanes);
  int shift = 0;
  while ((1 << shift) < feature_lanes) ++shift;
  return {shift, feature_lanes * entry_lanes, (vectors + feature_lanes - 1) / feature_lanes};
}

// A launch over the plan's items moving rows of `width` elements from `in`
// to `out` (16-byte accesses where the width and both pointers allow);
// its workspace pointers are left null.
template <typename T>
struct SegmentLaunch {
  std::shared_ptr<const SparsePlan> plan;
  SegmentArguments<T> args;
  bool vector;
  unsigned blocks;
};

template <typename T>
SegmentLaunch<T> segment_launch(const Segments& segments, int64_t width, const Tensor& in, Tensor& out, bool mean) {
  constexpr int kWide = spmm_cuda::kWideVec<T>;
  SegmentLaunch<T> launch;
  launch.plan = sparse_plan(segments.csr);
  launch.vector = width % kWide == 0 && sparse_cuda::aligned16(in.raw_data()) && sparse_cuda::aligned16(out.raw_data());
  const LaneShape shape = lane_shape(launch.vector ? width / kWide : width, launch.plan->mean_segment_length);
  launch.args = {sparse_cuda::offsets_of(segments.csr.indptr),
                 sparse_cuda::segment_list(*launch.plan, false),
                 segments.row_map.defined() ? segments.row_map.data<int32_t>() : nullptr,
                 in.data<T>(),
                 out.data<T>(),
                 nullptr,
                 nullptr,
                 nullptr,
                 width,
                 shape.tiles,
                 shape.feature_shift,
                 shape.lanes,
                 mean};
  launch.blocks = sparse_cuda::subwarp_blocks(launch.args.segments.count * shape.tiles, shape.lanes, in.device());
  return launch;
}

template <typename T>
void reduce_as(const Segments& segments, ReduceKind reduce, const Tensor& src, Tensor& out, Tensor& argument) {
  const Device device = src.device();
  cuda::DeviceGuard guard(device);
  const int64_t width = out.numel() / segments.csr.num_rows;
  SegmentLaunch<T> launch = segment_launch<T>(segments, width, src, out, reduce == ReduceKind::Mean);
  const SparsePlan& plan = *launch.plan;
  const bool keeps = reduce_keeps_argument(reduce);
  const int64_t split = plan.split_segments;
  const Tensor partials = split > 0 ? Tensor::empty({split, width}, DType::Float32, device) : Tensor();
  const Tensor partial_arguments = split > 0 && keeps ? Tensor::empty({split, width}, DType::Int32, device) : Tensor();
  SegmentArguments<T>& args = launch.args;
  args.argument = keeps ? argument.data<int32_t>() : nullptr;
  args.partials = split > 0 ? partials.data<float>() : nullptr;
  args.partial_arguments = split > 0 && keeps ? partial_arguments.data<int32_t>() : nullptr;
  cudaStream_t stream = cuda::stream(device);
  const auto run = [&](auto combine_tag) {
    constexpr int kCombine = decltype(combine_tag)::value;
    if (launch.vector) {
      segment_reduce_kernel<T, spmm_cuda::kWideVec<T>, kCombine>
          <<<launch.blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
    } else {
      segment_reduce_kernel<T, 1, kCombine><<<launch.blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
    }
    SGNN_CUDA_CHECK_LAUNCH("segment_reduce_kernel");
    if (split == 0) return;
    // Piece lanes for the longest split row's pieces, up to 32.
    const int64_t most_pieces = (plan.max_row_length + plan.segment_length - 1) / plan.segment_length;
    const dim3 threads(kCombineFeatures, static_cast<unsigned>(sparse_cuda::next_power_of_two(most_pieces,
                                                                                              kCombinePieceLanes)));
    const int64_t blocks = plan.num_split_rows * ((width + kCombineFeatures - 1) / kCombineFeatures);
    const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 16;
    combine_split_rows_kernel<T, kCombine><<<static_cast<unsigned>(std::min(blocks, cap)), threads, 0, stream>>>(
        args, plan.split_rows.data<int32_t>(), plan.split_offsets.data<int64_t>(), plan.num_split_rows);
    SGNN_CUDA_CHECK_LAUNCH("combine_split_rows_kernel");
  };
  switch (reduce) {
    case ReduceKind::Max: return run(std::integral_constant<int, kMax>{});
    case ReduceKind::Min: return run(std::integral_constant<int, kMin>{});
    default: return run(std::integral_constant<int, kSum>{});
  }
}

template <typename T>
void spread_as(const Segments& segments, bool mean, const Tensor& grad_out, Tensor& grad_src) {
  const Device device = grad_out.device();
  cuda::DeviceGuard guard(device);
  const SegmentLaunch<T> launch =
      segment_launch<T>(segments, grad_out.numel() / segments.csr.num_rows, grad_out, grad_src, mean);
  cudaStream_t stream = cuda::stream(device);
  if (launch.vector) {
    segment_spread_kernel<T, spmm_cuda::kWideVec<T>><<<launch.blocks, sparse_cuda::kBlockThreads, 0, stream>>>(launch.args);
  } else {
    segment_spread_kernel<T, 1><<<launch.blocks, sparse_cuda::kBlockThreads, 0, stream>>>(launch.args);
  }
  SGNN_CUDA_CHECK_LAUNCH("segment_spread_kernel");
}

}  // namespace

void segment_reduce_forward(Cuda, const Segments& segments, ReduceKind reduce, const Tensor& src, Tensor& out,
                            Tensor& argument) {
  if (out.numel() == 0) return;
  if (src.dtype() == DType::BFloat16) return reduce_as<bfloat16>(segments, reduce, src, out, argument);
  reduce_as<float>(segments, reduce, src, out, argument);
}

void segment_reduce_backward(Cuda, const Segments& segments, ReduceKind reduce, const Tensor& grad_out,
                             Tensor& grad_src) {
  if (grad_out.numel() == 0 || grad_src.numel() == 0) return;
  if (grad_out.dtype() == DType::BFloat16) {
    return spread_as<bfloat16>(segments, reduce == ReduceKind::Mean, grad_out, grad_src);
  }
  spread_as<float>(segments, reduce == ReduceKind::Mean, grad_out, grad_src);
}

}  // namespace sgnn::ops
