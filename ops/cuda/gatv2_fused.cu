// gatv2_aggregate's fused kernels (ops/gatv2_backend.hpp), in the whole-row
// layout of ops/cuda/gatv2_lanes.cuh (every head of an entry in one group of
// lanes, 32 / group entries side by side, kUnroll in flight each) with their
// own lanes per head (fused_row_layout below). Three passes that gather a [H·F] row per entry, where the
// composition spmm(dropout(gatv2_attention)) makes six (docs/kernels.md):
//  - forward, a warp per row (split rows: per segment, then a merge): the
//    scores, an online softmax (running maximum and sum per head, the
//    aggregate rescaled when the maximum grows, as FlashAttention does) and
//    the aggregation with the dropout mask, in the one pass that loads
//    x_source[col]. It keeps the raw scores [nnz, H] and each row's
//    log-sum-exp [n_rows, H]; α = exp(score − lse) is recomputed where used.
//  - backward over A's segments: the softmax gradient from D[row, h] =
//    grad_out[row, h]·out[row, h], so the scores' gradient α·(∂L/∂α − D),
//    x_target's and a's gradients come out of the pass that loads
//    x_source[col]; it also keeps the sign of z = x_target[row] +
//    x_source[col] per (entry, head, feature), one bit each.
//  - backward over Aᵀ's segments: x_source's gradient, g·a·LeakyReLU'(z) +
//    α̃·grad_out[row], from those bits and the scores' gradient g and α̃ that
//    the row pass wrote side by side; it gathers grad_out[row] only, as the
//    transposed aggregation of GAT does.
// The dropout mask is drawn into bits [nnz·H] (Philox blocks of 8 draws,
// ops::dropout's) by the forward and again by the backward (0.7 ms each on
// the Reddit-scale preset: cheaper than keeping them), and read by the passes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "ops/cuda/gatv2_lanes.cuh"
#include "ops/gatv2_backend.hpp"

namespace sgnn::ops {

namespace {

using namespace gatv2_cuda;

constexpr unsigned kFullWarp = 0xffffffffu;
// Blocks of kBlockThreads resident per SM that the fused kernels' registers
// must allow (80 registers for 3, 128 for 2): these kernels wait on gathers,
// and at 99 registers (two blocks) the first version had too few warps
// resident to cover them; lanes holding 8 values a chunk spill at 80.
constexpr int fused_blocks_per_sm(int lane_values) { return lane_values >= 8 ? 2 : 3; }
// The row pass of the backward holds more per value (x, grad_out, the
// gradient sums): at 80 registers it spilled 32-268 bytes a thread with 5-7
// values a lane, and 56-84 bytes with 3-4 values and four entries in
// flight, so it takes two blocks from 10 values in flight.
constexpr int rows_backward_blocks_per_sm(int values_in_flight) { return values_in_flight >= 10 ? 2 : 3; }

// Bit k of the mask: draw k (entry k / H, head k % H) kept. 32 draws a word,
// four Philox blocks of ops::dropout's 16-bit draws.
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    keep_bits_kernel(RandomDraw draw, float p, int64_t draws, uint32_t* __restrict__ bits) {
  const PhiloxStream stream = draw.resolve();
  const int64_t words = (draws + 31) / 32;
  for (int64_t word = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; word < words;
       word += int64_t{gridDim.x} * blockDim.x) {
    uint32_t value = 0;
    for (int block = 0; block < 4; ++block) {
      float u[8];
      stream.uniform8(static_cast<uint64_t>(word * 4 + block), u);
#pragma unroll
      for (int i = 0; i < 8; ++i) value |= (u[i] >= p ? 1u : 0u) << (block * 8 + i);
    }
    bits[word] = value;
  }
}

// The dropout factor of draw k: scale or 0, 1 without dropout.
struct KeepMask {
  const uint32_t* bits = nullptr;
  float scale = 1.0f;
  __device__ __forceinline__ float factor(int64_t k) const {
    if (bits == nullptr) return 1.0f;
    return (__ldg(bits + (k >> 5)) >> (k & 31)) & 1u ? scale : 0.0f;
  }
};

// exp(from − to), 0 for a partial that has seen nothing (from = −inf).
__device__ __forceinline__ float rescale_factor(float from, float to) { return from == -INFINITY ? 0.0f : expf(from - to); }

// Positions in A count in 32 bits here: the fused path needs nnz < 2^31
// (gatv2_fused_layouts), and 64-bit positions cost two instructions for
// every add and compare. The (entry, head) index of the scores and the mask
// may pass 2^31 and is formed in 64 bits.
__device__ __forceinline__ int64_t entry_head(int32_t position, int heads, int head) {
  return int64_t{position} * heads + head;
}

// The columns of a step's entries (base + u · slots + slot; -1 past end),
// loaded one step ahead so that the gathers of a step need not wait for them.
template <int kUnroll, typename Lanes>
__device__ __forceinline__ void load_columns(const int32_t* __restrict__ indices, int32_t base, int32_t end,
                                             const Lanes& f, int32_t (&columns)[kUnroll]) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int32_t position = base + u * f.slots + f.slot;
    columns[u] = position < end ? __ldg(indices + position) : -1;
  }
}

struct ForwardOutputs {
  float* scores = nullptr;   // [nnz, H]
  float* row_lse = nullptr;  // [n_rows, H]
  float* out_f32 = nullptr;  // [n_rows, H, F], one of the two
  bfloat16* out_bf16 = nullptr;
  // Split rows: each segment's running maximum and sum [segments, H] and
  // aggregate [segments, H·F], merged by split_rows_merge_kernel.
  float* part_max = nullptr;
  float* part_sum = nullptr;
  float* part_acc = nullptr;
  KeepMask keep;
};

__device__ __forceinline__ void store_out(const ForwardOutputs& to, int64_t offset, float value) {
  if (to.out_f32 != nullptr) to.out_f32[offset] = value;
  else to.out_bf16[offset] = store_as<bfloat16>(value);
}

template <typename T, int kVec, int kChunks, int kUnroll>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, fused_blocks_per_sm(kVec * kChunks))
    gatv2_fused_forward_kernel(Gatv2Arguments args, WholeRowLanes lanes, ForwardOutputs to) {
  const auto f = lane_features<kVec, kChunks>(args, lanes);
  const int head = f.valid[0] ? f.head : 0;
  const LaneOffsets offsets = LaneOffsets::template make<kVec>(f, lanes, args.heads, args.features);
  const T* __restrict__ targets = typed_data<T>(args.rows);
  const T* __restrict__ sources = typed_data<T>(args.columns);
  const int64_t width = args.heads * args.features;
  float a[kChunks][kVec];
  load_attention<kVec, kChunks>(args, f, head, a);
  for (int64_t item = sparse_cuda::global_subwarp(32); item < args.segments.count; item += sparse_cuda::subwarp_count(32)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;
    float x[kChunks][kVec], acc[kChunks][kVec];
    load_lane_row<kVec, kChunks>(targets, args.rows.row_stride, offsets, range.row, x);
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[j][v] = 0.0f;
    }
    float maximum = -INFINITY, sum = 0.0f;  // this slot's, for this lane's head
    const auto begin = static_cast<int32_t>(range.begin), end = static_cast<int32_t>(range.end);
    const int32_t step = kUnroll * f.slots;
    int32_t next[kUnroll];
    load_columns<kUnroll>(args.indices, begin, end, f, next);
    for (int32_t base = begin; base < end; base += step) {
      int32_t position[kUnroll];
      int32_t columns[kUnroll];
      float y[kUnroll][kChunks][kVec], kept[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) columns[u] = next[u];
      load_columns<kUnroll>(args.indices, base + step, end, f, next);  // in flight during this step
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        position[u] = base + u * f.slots + f.slot;
        kept[u] = position[u] < end ? to.keep.factor(entry_head(position[u], args.heads, head)) : 0.0f;
        // Past the end: row 0, read and not used.
        load_lane_row<kVec, kChunks>(sources, args.columns.row_stride, offsets, columns[u] >= 0 ? columns[u] : 0, y[u]);
      }
      float score[kUnroll];
      float grown = maximum;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        float partial = 0.0f;
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) partial += a[j][v] * leaky(x[j][v] + y[u][j][v], args.slope);
        }
        score[u] = lanes_sum(partial, lanes.per_head);
        if (position[u] < end) {
          if (f.valid[0] && f.feature[0] == 0) to.scores[entry_head(position[u], args.heads, head)] = score[u];
          grown = fmaxf(grown, score[u]);
        }
      }
      if (grown != maximum) {  // rescale what this slot has summed to the new maximum
        const float factor = rescale_factor(maximum, grown);
        sum *= factor;
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) acc[j][v] *= factor;
        }
        maximum = grown;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (position[u] >= end) continue;
        const float weight = expf(score[u] - maximum);
        sum += weight;
        const float dropped = weight * kept[u];
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) acc[j][v] += dropped * y[u][j][v];
        }
      }
    }
    // The slots' partials, merged (lanes `group` apart): every lane ends with the segment's.
    for (int offset = lanes.group; offset < 32; offset *= 2) {
      const float other_maximum = __shfl_xor_sync(kFullWarp, maximum, offset);
      const float other_sum = __shfl_xor_sync(kFullWarp, sum, offset);
      const float merged = fmaxf(maximum, other_maximum);
      const float mine = rescale_factor(maximum, merged), theirs = rescale_factor(other_maximum, merged);
      sum = sum * mine + other_sum * theirs;
#pragma unroll
      for (int j = 0; j < kChunks; ++j) {
#pragma unroll
        for (int v = 0; v < kVec; ++v) acc[j][v] = acc[j][v] * mine + __shfl_xor_sync(kFullWarp, acc[j][v], offset) * theirs;
      }
      maximum = merged;
    }
    if (f.slot != 0 || !f.valid[0]) continue;
    const bool split = item < args.segments.split_segments;
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      if (!f.valid[j]) continue;
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (f.feature[j] + v >= args.features) continue;
        const int64_t offset = head * args.features + f.feature[j] + v;
        if (split) to.part_acc[item * width + offset] = acc[j][v];
        else store_out(to, range.row * width + offset, sum > 0.0f ? acc[j][v] / sum : 0.0f);
      }
    }
    if (f.feature[0] != 0) continue;
    if (split) {
      to.part_max[item * args.heads + head] = maximum;
      to.part_sum[item * args.heads + head] = sum;
    } else {
      to.row_lse[range.row * args.heads + head] = maximum + logf(sum);
    }
  }
}

// A warp per split row: its segments' partials merged per (head, feature).
struct SplitRowsMerge {
  const int32_t* rows = nullptr;     // the plan's split_rows
  const int64_t* offsets = nullptr;  // [rows + 1]: each split row's segments
  int64_t count = 0;
  int heads = 1;
  int64_t features = 1;
};

__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    split_rows_merge_kernel(SplitRowsMerge split, ForwardOutputs to) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int64_t width = split.heads * split.features;
  for (int64_t k = sparse_cuda::global_subwarp(32); k < split.count; k += sparse_cuda::subwarp_count(32)) {
    const int64_t row = split.rows[k];
    for (int64_t i = lane; i < width; i += 32) {
      const int64_t head = i / split.features;
      float maximum = -INFINITY, sum = 0.0f, acc = 0.0f;
      for (int64_t s = split.offsets[k]; s < split.offsets[k + 1]; ++s) {
        const float other = to.part_max[s * split.heads + head];
        const float merged = fmaxf(maximum, other);
        const float mine = rescale_factor(maximum, merged), theirs = rescale_factor(other, merged);
        sum = sum * mine + to.part_sum[s * split.heads + head] * theirs;
        acc = acc * mine + to.part_acc[s * width + i] * theirs;
        maximum = merged;
      }
      store_out(to, row * width + i, sum > 0.0f ? acc / sum : 0.0f);
      if (i % split.features == 0) to.row_lse[row * split.heads + head] = maximum + logf(sum);
    }
  }
}

// The signs of z: each lane of an entry's group keeps plane_bits(planes)
// bits (its values' planes q = j·kVec + v, at most 8, rounded up to a power
// of two), lanes_per_byte lanes a byte: lane k of the group at bits
// (k % lanes_per_byte)·plane_bits of byte e·entry_bytes + k / lanes_per_byte.
// An entry's bits are then H·F bits rounded up to whole lanes, at most one
// sector, a lane reads one byte and shifts, and packing costs a shuffle or
// two. (Bit planes across the group, as first built, cost a ballot and, past
// 64 bits an entry, a branch per value; a byte per lane cost twice the
// memory where a lane holds 3-4 values.)
constexpr int plane_bits(int planes) { return planes <= 1 ? 1 : planes <= 2 ? 2 : planes <= 4 ? 4 : 8; }
struct SignBytes {
  uint8_t* bytes = nullptr;
  int entry_bytes = 1;
  int lanes_per_byte = 1;  // 8 / plane_bits, at most the group's lanes
};

struct BackwardArguments {
  DeviceOperand grad_out, out;  // [n_rows, H, F]
  const float* scores = nullptr;
  const float* row_lse = nullptr;
  KeepMask keep;
  // [nnz, H] in A's order: the scores' gradient and α̃ = α · the mask's
  // factor, side by side for the pass over Aᵀ (one sector an entry where it
  // read the scores, the rows' log-sum-exp and the mask: three).
  float2* gradient_and_weight = nullptr;
  SignBytes signs;
  float* grad_target = nullptr;  // [n_rows, H, F], added to
  float* grad_a = nullptr;       // [H, F], added to
};

template <typename T, int kVec, int kChunks, int kUnroll>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, rows_backward_blocks_per_sm(kVec * kChunks * kUnroll))
    gatv2_fused_rows_backward_kernel(Gatv2Arguments args, WholeRowLanes lanes, BackwardArguments b) {
  static_assert(kChunks * kVec <= 8, "a lane's signs fill one byte");
  constexpr int kPlaneBits = plane_bits(kChunks * kVec);
  const auto f = lane_features<kVec, kChunks>(args, lanes);
  const int head = f.valid[0] ? f.head : 0;
  const LaneOffsets offsets = LaneOffsets::template make<kVec>(f, lanes, args.heads, args.features);
  const T* __restrict__ targets = typed_data<T>(args.rows);
  const T* __restrict__ sources = typed_data<T>(args.columns);
  const int in_group = static_cast<int>(threadIdx.x) & (lanes.group - 1);
  const int sign_shift = (in_group % b.signs.lanes_per_byte) * kPlaneBits;
  const int sign_byte = in_group / b.signs.lanes_per_byte;
  const int64_t width = args.heads * args.features;
  float a[kChunks][kVec], a_sums[kChunks][kVec] = {};
  load_attention<kVec, kChunks>(args, f, head, a);
  for (int64_t item = sparse_cuda::global_subwarp(32); item < args.segments.count; item += sparse_cuda::subwarp_count(32)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;
    float x[kChunks][kVec], upstream[kChunks][kVec], acc[kChunks][kVec];
    float weighted = 0.0f;  // D[row, head] = Σ_f grad_out · out
    load_lane_row<kVec, kChunks>(targets, args.rows.row_stride, offsets, range.row, x);
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      const int64_t feature = f.valid[j] ? f.feature[j] : 0;
      float output[kVec];
      b.grad_out.template load<kVec>(b.grad_out.at(range.row, head, feature), upstream[j]);
      b.out.template load<kVec>(b.out.at(range.row, head, feature), output);
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (!f.valid[j] || f.feature[j] + v >= args.features) upstream[j][v] = 0.0f;
        weighted += upstream[j][v] * output[v];
        acc[j][v] = 0.0f;
      }
    }
    weighted = lanes_sum(weighted, lanes.per_head);
    const float lse = f.valid[0] ? __ldg(b.row_lse + range.row * args.heads + head) : 0.0f;
    const auto begin = static_cast<int32_t>(range.begin), end = static_cast<int32_t>(range.end);
    const int32_t step = kUnroll * f.slots;
    int32_t next[kUnroll];
    load_columns<kUnroll>(args.indices, begin, end, f, next);
    for (int32_t base = begin; base < end; base += step) {
      int32_t position[kUnroll];
      int32_t columns[kUnroll];
      float y[kUnroll][kChunks][kVec], score[kUnroll], kept[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) columns[u] = next[u];
      load_columns<kUnroll>(args.indices, base + step, end, f, next);  // in flight during this step
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        position[u] = base + u * f.slots + f.slot;
        const bool inside = position[u] < end && f.valid[0];
        score[u] = inside ? __ldg(b.scores + entry_head(position[u], args.heads, head)) : 0.0f;
        kept[u] = inside ? b.keep.factor(entry_head(position[u], args.heads, head)) : 0.0f;
        // Outside: row 0, read and not used.
        load_lane_row<kVec, kChunks>(sources, args.columns.row_stride, offsets, inside ? columns[u] : 0, y[u]);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const bool inside = position[u] < end && f.valid[0];
        float product = 0.0f;  // ∂L/∂α̃ = grad_out[row, head] · x_source[col, head]
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) product += upstream[j][v] * y[u][j][v];
        }
        product = lanes_sum(product, lanes.per_head);
        float g = 0.0f;
        if (inside) {
          const int64_t draw = entry_head(position[u], args.heads, head);
          const float alpha = expf(score[u] - lse);
          g = alpha * (product * kept[u] - weighted);
          if (f.feature[0] == 0) b.gradient_and_weight[draw] = make_float2(g, alpha * kept[u]);
        }
        uint32_t positive = 0;
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            const float z = x[j][v] + y[u][j][v];
            if (inside) {  // row 0's values, read outside, may not be finite: g · them is not 0
              const float gradient = g * (z > 0.0f ? 1.0f : args.slope);  // LeakyReLU(z) = z · LeakyReLU'(z)
              acc[j][v] += gradient * a[j][v];
              a_sums[j][v] += gradient * z;
            }
            positive |= (z > 0.0f ? 1u : 0u) << (j * kVec + v);
          }
        }
        // This byte's lanes' bits, gathered by every lane (the same entry: lanes_per_byte ≤ group).
        positive <<= sign_shift;
#pragma unroll
        for (int offset = 1; offset < 8 / kPlaneBits; offset *= 2) {
          const uint32_t other = __shfl_xor_sync(kFullWarp, positive, offset);
          if (offset < b.signs.lanes_per_byte) positive |= other;
        }
        // The byte's first lane holds a head whenever any of its lanes does.
        if (inside && sign_shift == 0) {
          b.signs.bytes[int64_t{position[u]} * b.signs.entry_bytes + sign_byte] = static_cast<uint8_t>(positive);
        }
      }
    }
    add_slot_sums<kVec, kChunks>(f, lanes, head, args.features, acc, b.grad_target + range.row * width);
  }
  add_slot_sums<kVec, kChunks>(f, lanes, head, args.features, a_sums, b.grad_a);
}

// x_source's gradient over Aᵀ: args.indptr/indices/segments are Aᵀ's (a
// segment's row is a source node, its indices the target rows), args.rows
// is grad_out; the entry's place in A through edge_map.
template <typename T, int kVec, int kChunks, int kUnroll>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, fused_blocks_per_sm(kVec * kChunks))
    gatv2_fused_columns_backward_kernel(Gatv2Arguments args, WholeRowLanes lanes, const int32_t* __restrict__ edge_map,
                                        BackwardArguments b, float* __restrict__ grad_source) {
  const auto f = lane_features<kVec, kChunks>(args, lanes);
  const int head = f.valid[0] ? f.head : 0;
  const LaneOffsets offsets = LaneOffsets::template make<kVec>(f, lanes, args.heads, args.features);
  const T* __restrict__ upstream_rows = typed_data<T>(args.rows);
  const int in_group = static_cast<int>(threadIdx.x) & (lanes.group - 1);
  const int sign_shift = (in_group % b.signs.lanes_per_byte) * plane_bits(kChunks * kVec);
  const int sign_byte = in_group / b.signs.lanes_per_byte;
  const int64_t width = args.heads * args.features;
  float a[kChunks][kVec];
  load_attention<kVec, kChunks>(args, f, head, a);
  for (int64_t item = sparse_cuda::global_subwarp(32); item < args.segments.count; item += sparse_cuda::subwarp_count(32)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;
    float acc[kChunks][kVec];
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[j][v] = 0.0f;
    }
    const auto begin = static_cast<int32_t>(range.begin), end = static_cast<int32_t>(range.end);
    const int32_t step = kUnroll * f.slots;
    int32_t next_rows[kUnroll], next_entries[kUnroll];
    load_columns<kUnroll>(args.indices, begin, end, f, next_rows);
    load_columns<kUnroll>(edge_map, begin, end, f, next_entries);
    for (int32_t base = begin; base < end; base += step) {
      float upstream[kUnroll][kChunks][kVec], g[kUnroll], kept[kUnroll];
      bool inside[kUnroll];
      uint32_t signs[kUnroll];  // this lane's bits of the entry's signs
      int32_t rows[kUnroll], entries[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        rows[u] = next_rows[u];
        entries[u] = next_entries[u];
      }
      load_columns<kUnroll>(args.indices, base + step, end, f, next_rows);  // in flight during this step
      load_columns<kUnroll>(edge_map, base + step, end, f, next_entries);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int32_t position = base + u * f.slots + f.slot;
        inside[u] = position < end && f.valid[0];
        const int32_t entry = position < end ? entries[u] : 0;
        const float2 pair =
            inside[u] ? __ldg(b.gradient_and_weight + entry_head(entry, args.heads, head)) : make_float2(0.0f, 0.0f);
        g[u] = pair.x;
        kept[u] = pair.y;
        // Outside: row 0, read and not used.
        load_lane_row<kVec, kChunks>(upstream_rows, args.rows.row_stride, offsets, inside[u] ? rows[u] : 0,
                                     upstream[u]);
        signs[u] = inside[u]
                       ? uint32_t{__ldg(b.signs.bytes + int64_t{entry} * b.signs.entry_bytes + sign_byte)} >> sign_shift
                       : 0u;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            const bool positive = (signs[u] >> (j * kVec + v)) & 1u;
            if (inside[u]) acc[j][v] += g[u] * a[j][v] * (positive ? 1.0f : args.slope) + kept[u] * upstream[u][j][v];
          }
        }
      }
    }
    add_slot_sums<kVec, kChunks>(f, lanes, head, args.features, acc, grad_source + range.row * width);
  }
}

// The fused kernels' layouts: gatv2_lanes.cuh's whole rows, with `per_head`
// lanes a head, each holding chunks · vec ≤ kLaneValues of its features.
// The default has as few lanes per head as that allows: more entries share
// a warp instruction and fewer shuffles sum a head. One entry per warp (a
// head of 41 scalar features over 32 lanes) left these kernels issuing an
// instruction per entry and lane (ncu, Reddit-scale preset, one head of 41:
// the forward took 31 ms against the SpMM's 7). Twice as many lanes halve a
// lane's values: more warps resident and fewer idle slots on short rows,
// which won on stencils and lost on long rows (bench_attention), so the op
// times both (ops/gatv2_attention.cpp).
constexpr int kLaneValues = 8;

std::optional<WholeRowLayout> fused_row_layout(int heads, int64_t features, int vec, int per_head) {
  const int64_t vectors = (features + vec - 1) / vec;
  if (per_head < 1 || per_head > 32 || int64_t{heads} * per_head > 32) return std::nullopt;
  const int64_t chunks = (vectors + per_head - 1) / per_head;
  if (chunks * vec > kLaneValues) return std::nullopt;
  WholeRowLayout layout;
  layout.chunks = static_cast<int>(chunks);
  layout.lanes.per_head = per_head;
  layout.lanes.group = sparse_cuda::next_power_of_two(int64_t{heads} * per_head, 32);
  return layout;
}

// The default layout's lanes per head and, where it exists, twice that.
std::vector<int> fused_layouts(int heads, int64_t features, int vec) {
  for (int per_head = 1; per_head <= 32; per_head *= 2) {
    if (!fused_row_layout(heads, features, vec, per_head)) continue;
    if (fused_row_layout(heads, features, vec, 2 * per_head)) return {per_head, 2 * per_head};
    return {per_head};
  }
  return {};
}

// The launches of fused_row_layout's shapes: float32 and bfloat16 (4 a
// chunk, 1 or 2 chunks) or scalars (1 to 8 chunks: exactly as many as a
// head's features need, since a chunk no lane uses costs its instructions
// all the same); four entries in flight per group of lanes, two where a lane
// holds more than 4 values (registers).
template <typename Launch>
void with_fused_rows(DType dtype, int vec, int chunks, const Launch& launch) {
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  using One = std::integral_constant<int, 1>;
  with_element_type(dtype, [&](auto type) {
    if (vec == 4) {
      if (chunks == 1) return launch(type, Four{}, One{}, Four{});
      return launch(type, Four{}, Two{}, Two{});
    }
    switch (chunks) {
      case 1: return launch(type, One{}, One{}, Four{});
      case 2: return launch(type, One{}, Two{}, Four{});
      case 3: return launch(type, One{}, std::integral_constant<int, 3>{}, Four{});
      case 4: return launch(type, One{}, Four{}, Four{});
      case 5: return launch(type, One{}, std::integral_constant<int, 5>{}, Two{});
      case 6: return launch(type, One{}, std::integral_constant<int, 6>{}, Two{});
      case 7: return launch(type, One{}, std::integral_constant<int, 7>{}, Two{});
      default: return launch(type, One{}, std::integral_constant<int, 8>{}, Two{});
    }
  });
}

// At most 4 elements a lane and chunk (bfloat16: 8-byte loads): the whole-row
// layout's 8 bfloat16s a lane spilled hundreds of bytes in these kernels.
int fused_vector_width(const Tensor& x_target, const Tensor& x_source) {
  return std::min(vector_width(x_target, x_source), 4);
}

// The mask's bits [ceil(nnz·H / 32)] int32 words, or an undefined tensor without dropout.
Tensor keep_bits(const std::optional<EntryDropout>& dropout, int64_t draws, Device device) {
  if (!dropout || draws == 0) return Tensor();
  const int64_t words = (draws + 31) / 32;
  Tensor bits = Tensor::empty({words}, DType::Int32, device);
  keep_bits_kernel<<<sparse_cuda::subwarp_blocks(words, 1, device), sparse_cuda::kBlockThreads, 0,
                     cuda::stream(device)>>>(dropout->draw, dropout->p, draws,
                                             reinterpret_cast<uint32_t*>(bits.data<int32_t>()));
  SGNN_CUDA_CHECK_LAUNCH("keep_bits_kernel");
  return bits;
}

KeepMask keep_mask(const Tensor& bits, const std::optional<EntryDropout>& dropout) {
  KeepMask mask;
  if (bits.defined()) {
    mask.bits = reinterpret_cast<const uint32_t*>(bits.data<int32_t>());
    mask.scale = 1.0f / (1.0f - dropout->p);
  }
  return mask;
}

WholeRowLayout layout_of(int heads, int64_t features, int vec, int lanes_per_head) {
  const std::optional<WholeRowLayout> layout = fused_row_layout(heads, features, vec, lanes_per_head);
  SGNN_CHECK(layout.has_value(), "gatv2_aggregate: no fused CUDA layout of ", lanes_per_head, " lanes per head for ",
             heads, " heads of ", features, " features (gatv2_fused_layouts says which exist)");
  return *layout;
}

// t itself when its rows allow vec-wide loads, else an aligned copy.
Tensor vector_aligned(const Tensor& t, int vec) {
  const FeatureLayout layout{t.size(1) * t.size(2), t.size(2), 1};
  return vec == 1 || vector_ready(t, layout, vec) ? t : t.clone();
}

void zero(Tensor& t) {
  SGNN_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), cuda::stream(t.device())));
}

}  // namespace

std::vector<int> gatv2_fused_layouts(Cuda, const Tensor& x_target, const Tensor& x_source,
                                     const Adjacency& adjacency) {
  // Positions in A count in 32 bits (entry_head); Aᵀ's edge map is read as int32.
  const bool map_fits = !adjacency.transpose_to_csr.defined() || adjacency.transpose_to_csr.dtype() == DType::Int32;
  // (a step past the last entry included).
  if (!map_fits || adjacency.csr.nnz > std::numeric_limits<int32_t>::max() - 1024) return {};
  return fused_layouts(static_cast<int>(x_target.size(1)), x_target.size(2), fused_vector_width(x_target, x_source));
}

void gatv2_aggregate_forward(Cuda, const Csr& csr, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                             float negative_slope, const std::optional<EntryDropout>& dropout, int lanes_per_head,
                             Tensor& scores, Tensor& row_lse, Tensor& out) {
  if (csr.num_rows == 0) return;
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  Gatv2Arguments args = arguments_of(csr, *plan, x_target, x_source, a, negative_slope);
  args.segments = sparse_cuda::segment_list(*plan, true);  // whole rows, and the split rows' segments
  const int vec = fused_vector_width(x_target, x_source);
  const WholeRowLayout layout = layout_of(args.heads, args.features, vec, lanes_per_head);
  const Tensor bits = keep_bits(dropout, csr.nnz * args.heads, device);
  ForwardOutputs to;
  to.scores = scores.data<float>();
  to.row_lse = row_lse.data<float>();
  if (out.dtype() == DType::BFloat16) to.out_bf16 = out.data<bfloat16>();
  else to.out_f32 = out.data<float>();
  to.keep = keep_mask(bits, dropout);
  Tensor part_max, part_sum, part_acc;
  if (plan->split_segments > 0) {
    part_max = Tensor::empty({plan->split_segments, args.heads}, DType::Float32, device);
    part_sum = Tensor::empty({plan->split_segments, args.heads}, DType::Float32, device);
    part_acc = Tensor::empty({plan->split_segments, args.heads * args.features}, DType::Float32, device);
    to.part_max = part_max.data<float>();
    to.part_sum = part_sum.data<float>();
    to.part_acc = part_acc.data<float>();
  }
  with_fused_rows(x_source.dtype(), vec, layout.chunks, [&](auto type, auto vec_constant, auto chunks, auto unroll) {
    gatv2_fused_forward_kernel<typename decltype(type)::type, decltype(vec_constant)::value, decltype(chunks)::value,
                               decltype(unroll)::value>
        <<<sparse_cuda::subwarp_blocks(args.segments.count, 32, device), sparse_cuda::kBlockThreads, 0,
           cuda::stream(device)>>>(args, layout.lanes, to);
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_fused_forward_kernel");
  if (plan->num_split_rows > 0) {
    const SplitRowsMerge split{plan->split_rows.data<int32_t>(), plan->split_offsets.data<int64_t>(),
                               plan->num_split_rows, args.heads, args.features};
    split_rows_merge_kernel<<<sparse_cuda::subwarp_blocks(split.count, 32, device), sparse_cuda::kBlockThreads, 0,
                              cuda::stream(device)>>>(split, to);
    SGNN_CUDA_CHECK_LAUNCH("split_rows_merge_kernel");
  }
}

void gatv2_aggregate_backward(Cuda, const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source,
                              const Tensor& a, float negative_slope, const std::optional<EntryDropout>& dropout,
                              int lanes_per_head, const Tensor& scores, const Tensor& row_lse, const Tensor& out,
                              const Tensor& grad_out, Tensor& grad_x_target, Tensor& grad_x_source, Tensor& grad_a) {
  const Device device = grad_x_target.device();
  cuda::DeviceGuard guard(device);
  for (Tensor* gradient : {&grad_x_target, &grad_x_source, &grad_a}) zero(*gradient);
  const Csr& csr = adjacency.csr;
  if (csr.nnz == 0) return;
  const int vec = fused_vector_width(x_target, x_source);
  const Tensor upstream = vector_aligned(grad_out, vec);
  const Tensor output = vector_aligned(out, vec);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const Gatv2Arguments args = arguments_of(csr, *plan, x_target, x_source, a, negative_slope);
  const WholeRowLayout layout = layout_of(args.heads, args.features, vec, lanes_per_head);
  const Tensor bits = keep_bits(dropout, csr.nnz * args.heads, device);
  SignBytes sign_layout;
  sign_layout.lanes_per_byte = std::min(8 / plane_bits(layout.chunks * vec), layout.lanes.group);
  sign_layout.entry_bytes = layout.lanes.group / sign_layout.lanes_per_byte;
  Tensor signs = Tensor::empty({(csr.nnz * sign_layout.entry_bytes + 3) / 4}, DType::Int32, device);
  sign_layout.bytes = reinterpret_cast<uint8_t*>(signs.data<int32_t>());
  Tensor gradient_and_weight = Tensor::empty({csr.nnz, args.heads, 2}, DType::Float32, device);
  const FeatureLayout rows_layout{args.heads * args.features, args.features, 1};
  BackwardArguments b;
  b.grad_out = device_operand(upstream, rows_layout);
  b.out = device_operand(output, rows_layout);
  b.scores = scores.data<float>();
  b.row_lse = row_lse.data<float>();
  b.keep = keep_mask(bits, dropout);
  b.gradient_and_weight = reinterpret_cast<float2*>(gradient_and_weight.data<float>());
  b.signs = sign_layout;
  b.grad_target = grad_x_target.data<float>();
  b.grad_a = grad_a.data<float>();
  with_fused_rows(x_source.dtype(), vec, layout.chunks, [&](auto type, auto vec_constant, auto chunks, auto unroll) {
    gatv2_fused_rows_backward_kernel<typename decltype(type)::type, decltype(vec_constant)::value,
                                     decltype(chunks)::value, decltype(unroll)::value>
        <<<sparse_cuda::subwarp_blocks(args.segments.count, 32, device), sparse_cuda::kBlockThreads, 0,
           cuda::stream(device)>>>(args, layout.lanes, b);
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_fused_rows_backward_kernel");
  // x_source's gradient: rows of Aᵀ, grad_out gathered by their target rows.
  SGNN_CHECK(adjacency.transpose_to_csr.dtype() == DType::Int32,
             "gatv2_aggregate: the fused backward reads Aᵀ's edge map as int32 (nnz < 2^31)");
  const Csr& transpose = adjacency.transpose;
  const std::shared_ptr<const SparsePlan> transpose_plan = sparse_plan(transpose);
  const Gatv2Arguments columns = arguments_of(transpose, *transpose_plan, upstream, upstream, a, negative_slope);
  with_fused_rows(upstream.dtype(), vec, layout.chunks, [&](auto type, auto vec_constant, auto chunks, auto unroll) {
    gatv2_fused_columns_backward_kernel<typename decltype(type)::type, decltype(vec_constant)::value,
                                        decltype(chunks)::value, decltype(unroll)::value>
        <<<sparse_cuda::subwarp_blocks(columns.segments.count, 32, device), sparse_cuda::kBlockThreads, 0,
           cuda::stream(device)>>>(columns, layout.lanes, adjacency.transpose_to_csr.data<int32_t>(), b,
                                   grad_x_source.data<float>());
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_fused_columns_backward_kernel");
}

}  // namespace sgnn::ops
