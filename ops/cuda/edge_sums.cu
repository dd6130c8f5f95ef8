// CUDA edge_sums (ops/edge_sums_backend.hpp): the row sums of a per-edge
// tensor over the plan's work segments (ops/sparse_segments.hpp), so a hub
// row spreads over many subwarps.
//   - 8 heads (GAT's usual count) with aligned values: a subwarp per segment,
//     a lane per entry with all its heads (one vector load an entry);
//   - other heads dividing 32 (GAT's 1): a subwarp per segment, its lanes on
//     consecutive elements of the segment's [entries × heads] block, so lane
//     l always holds head l mod heads and every load is coalesced (through
//     the map: one run of `heads` elements per entry); lanes of one head
//     merge by shuffles;
//   - other head counts: a subwarp per (segment, head), lanes on entries.
// Four loads in flight per lane. A whole row's sums are stored directly; a
// split row's segments store partials that a warp per (split row, head) adds
// in a fixed order. The order of additions depends only on the graph and the
// launch: deterministic.
#include <cmath>
#include <cstdint>

#include "ops/cuda/entry_heads.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/edge_sums_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

constexpr int kWarp = 32;
constexpr int kBatch = 4;  // loads a lane issues before adding them

template <typename T>
struct EdgeSumArguments {
  Offsets indptr;
  Offsets map;  // set when `mapped`
  bool mapped;
  sparse_cuda::SegmentList segments;
  int heads;
  int heads_shift;  // log2(heads), interleaved only
  const T* values;
  float* out;
  float* partials;  // [split segments, heads]
  const int64_t* split_offsets;
  const int32_t* split_rows;
  int64_t num_split_rows;
};

template <typename T>
__device__ __forceinline__ float edge_value(const EdgeSumArguments<T>& args, int64_t entry, int64_t head) {
  const int64_t edge = args.mapped ? args.map[entry] : entry;
  return load_float_readonly(args.values + edge * args.heads + head);
}

// The segment's total for this lane's head, or a partial for a split row's segment.
template <typename T>
__device__ __forceinline__ void store_sum(const EdgeSumArguments<T>& args, int64_t item, int64_t row, int64_t head,
                                          float sum) {
  if (item < args.segments.split_segments) args.partials[item * args.heads + head] = sum;
  else args.out[row * args.heads + head] = sum;
}

template <bool kInterleaved, int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) edge_sums_kernel(EdgeSumArguments<T> args) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t heads = args.heads;
  const int64_t items = kInterleaved ? args.segments.count : args.segments.count * heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int64_t segment = kInterleaved ? item : item / heads;
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, segment);
    float sum = 0.0f;
    if constexpr (kInterleaved) {
      // Positions p of the [entries × heads] block: entry p >> heads_shift, head p mod heads = lane mod heads.
      const int64_t end = range.end * heads;
      for (int64_t base = range.begin * heads + lane; base < end; base += kBatch * kSub) {
        float value[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int64_t p = base + u * kSub;
          value[u] = p < end ? edge_value(args, p >> args.heads_shift, p & (heads - 1)) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) sum += value[u];
      }
#pragma unroll
      for (int offset = kSub / 2; offset > 0; offset /= 2) {
        if (offset < heads) break;
        sum += __shfl_xor_sync(mask, sum, offset, kSub);
      }
      if (lane < heads) store_sum(args, segment, range.row, lane, sum);
    } else {
      const int64_t head = item - segment * heads;
      for (int64_t base = range.begin + lane; base < range.end; base += kBatch * kSub) {
        float value[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int64_t e = base + u * kSub;
          value[u] = e < range.end ? edge_value(args, e, head) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) sum += value[u];
      }
      sum = sparse_cuda::subwarp_sum<kSub>(sum, mask);
      if (lane == 0) store_sum(args, segment, range.row, head, sum);
    }
  }
}

// A warp per (split row, head): lane l adds segments l, l + 32, … of the row, then a butterfly.
template <typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) split_sums_kernel(EdgeSumArguments<T> args) {
  constexpr unsigned kFullWarp = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x) & (kWarp - 1);
  const int64_t heads = args.heads;
  const int64_t items = args.num_split_rows * heads;
  for (int64_t item = sparse_cuda::global_subwarp(kWarp); item < items; item += sparse_cuda::subwarp_count(kWarp)) {
    const int64_t k = item / heads;
    const int64_t head = item - k * heads;
    float sum = 0.0f;
    for (int64_t s = args.split_offsets[k] + lane; s < args.split_offsets[k + 1]; s += kWarp) {
      sum += args.partials[s * heads + head];
    }
    sum = sparse_cuda::subwarp_sum<kWarp>(sum, kFullWarp);
    if (lane == 0) args.out[int64_t{args.split_rows[k]} * heads + head] = sum;
  }
}

// kEntryHeads heads with 16-byte aligned values: a lane per entry, all its
// heads in one vector load (the interleaved form loads each head on its own
// lane, with its own index: bound by issued instructions, 2 ms a call in
// float32 and bfloat16 alike on the Reddit-scale GAT).
template <int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) edge_sums_entries_kernel(EdgeSumArguments<T> args) {
  constexpr int kHeads = sparse_cuda::kEntryHeads;
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < args.segments.count;
       item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    float sum[kHeads] = {};
    for (int64_t base = range.begin + lane; base < range.end; base += kBatch * kSub) {
      sparse_cuda::Heads<T> value[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int64_t e = base + u * kSub;
        if (e < range.end) {
          value[u] = sparse_cuda::load_raw_heads(args.values + (args.mapped ? args.map[e] : e) * kHeads);
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (base + u * kSub >= range.end) continue;
#pragma unroll
        for (int h = 0; h < kHeads; ++h) sum[h] += value[u][h];
      }
    }
#pragma unroll
    for (int h = 0; h < kHeads; ++h) sum[h] = sparse_cuda::subwarp_sum<kSub>(sum[h], mask);
    if (lane == 0) {
#pragma unroll
      for (int h = 0; h < kHeads; ++h) store_sum(args, item, range.row, h, sum[h]);
    }
  }
}

template <int kSub, typename T>
void launch_entries(const EdgeSumArguments<T>& args, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.segments.count, kSub, device);
  edge_sums_entries_kernel<kSub><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("edge_sums_entries_kernel");
}

template <bool kInterleaved, int kSub, typename T>
void launch(const EdgeSumArguments<T>& args, Device device) {
  const int64_t items = kInterleaved ? args.segments.count : args.segments.count * args.heads;
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kSub, device);
  edge_sums_kernel<kInterleaved, kSub><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("edge_sums_kernel");
}

// Lanes for the mean segment's elements (its entries, times the heads when
// interleaved), at least 4, and at least `heads` when interleaved.
template <bool kInterleaved, typename T>
void launch_for(const EdgeSumArguments<T>& args, double elements, Device device) {
  int sub = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(elements)), kWarp);
  if (kInterleaved) sub = std::max(sub, args.heads);
  if (sub <= 4) launch<kInterleaved, 4>(args, device);
  else if (sub == 8) launch<kInterleaved, 8>(args, device);
  else if (sub == 16) launch<kInterleaved, 16>(args, device);
  else launch<kInterleaved, kWarp>(args, device);
}

}  // namespace

void edge_sums(Cuda, const Csr& csr, int64_t heads, const Tensor& values, const Tensor& map, Tensor& out) {
  if (out.numel() == 0) return;
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const Tensor partials = plan->split_segments > 0
                              ? Tensor::empty({plan->split_segments, heads}, DType::Float32, device)
                              : Tensor();
  const bool interleaved = heads <= kWarp && (heads & (heads - 1)) == 0;
  int shift = 0;
  while ((int64_t{1} << shift) < heads) ++shift;
  visit_floating(values.dtype(), [&](auto element) {
    using T = decltype(element);
    const EdgeSumArguments<T> args{offsets_of(csr.indptr),
                                   map.defined() ? offsets_of(map) : Offsets{},
                                   map.defined(),
                                   sparse_cuda::segment_list(*plan, false),
                                   static_cast<int>(heads),
                                   shift,
                                   values.data<T>(),
                                   out.data<float>(),
                                   partials.defined() ? partials.data<float>() : nullptr,
                                   plan->split_offsets.data<int64_t>(),
                                   plan->num_split_rows > 0 ? plan->split_rows.data<int32_t>() : nullptr,
                                   plan->num_split_rows};
    if (heads == sparse_cuda::kEntryHeads && sparse_cuda::aligned16(values.raw_data())) {
      const int sub = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(plan->mean_segment_length)), kWarp);
      if (sub <= 4) launch_entries<4>(args, device);
      else if (sub == 8) launch_entries<8>(args, device);
      else if (sub == 16) launch_entries<16>(args, device);
      else launch_entries<kWarp>(args, device);
    } else if (interleaved) {
      launch_for<true>(args, plan->mean_segment_length * static_cast<double>(heads), device);
    } else {
      launch_for<false>(args, plan->mean_segment_length, device);
    }
    if (plan->num_split_rows > 0) {
      const unsigned blocks = sparse_cuda::subwarp_blocks(plan->num_split_rows * heads, kWarp, device);
      split_sums_kernel<<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
      SGNN_CUDA_CHECK_LAUNCH("split_sums_kernel");
    }
  });
}

}  // namespace sgnn::ops
