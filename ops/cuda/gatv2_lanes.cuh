// What the GATv2 kernels share (ops/cuda/gatv2.cu: the scores and their
// gradients; ops/cuda/gatv2_fused.cu: gatv2_aggregate): their arguments, the
// whole-row layout of a warp's lanes over an entry's heads and features,
// and the host choice of that layout.
#pragma once

#include <optional>
#include <type_traits>

#include "ops/cuda/gspmm_kernel.cuh"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops::gatv2_cuda {

using gspmm_cuda::DeviceOperand;
using gspmm_cuda::device_operand;
using gspmm_cuda::vector_ready;
using sparse_cuda::offsets_of;

struct Gatv2Arguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices = nullptr;
  sparse_cuda::SegmentList segments;
  int heads = 1;
  int64_t features = 1;
  int64_t tiles = 1;
  DeviceOperand rows, columns;  // [n, H, F]
  const float* a = nullptr;     // [H, F]
  float slope = 0.2f;
};

__device__ __forceinline__ float leaky(float z, float slope) { return z > 0.0f ? z : slope * z; }

// The whole-row layout: lane `lane` of a warp serves entry slot lane / group
// (group = the lanes of one entry, a power of two ≤ 32) and, within it, head
// (lane % group) / per_head and the features (k + j · per_head) · kVec of
// that head, k = lane % per_head, j < kChunks (per_head a power of two).
struct WholeRowLanes {
  int group = 32;     // lanes per entry
  int per_head = 32;  // lanes per head
};

template <int kChunks>
struct LaneFeatures {
  int head;
  int64_t feature[kChunks];  // first feature of each chunk; valid[j] says whether it exists
  bool valid[kChunks];
  int slot;
  int slots;
};

template <int kVec, int kChunks>
__device__ __forceinline__ LaneFeatures<kChunks> lane_features(const Gatv2Arguments& args, WholeRowLanes lanes) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int in_group = lane & (lanes.group - 1);
  LaneFeatures<kChunks> f;
  f.head = in_group / lanes.per_head;
  f.slot = lane / lanes.group;
  f.slots = 32 / lanes.group;
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    f.feature[j] = (static_cast<int64_t>(in_group % lanes.per_head) + int64_t{j} * lanes.per_head) * kVec;
    f.valid[j] = f.head < args.heads && f.feature[j] < args.features;
  }
  return f;
}

// a[head, f] for this lane's features, 0 where it has none.
template <int kVec, int kChunks>
__device__ __forceinline__ void load_attention(const Gatv2Arguments& args, const LaneFeatures<kChunks>& f, int head,
                                               float (&a)[kChunks][kVec]) {
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) a[j][v] = f.valid[j] ? __ldg(args.a + head * args.features + f.feature[j] + v) : 0.0f;
  }
}

// This lane's features of operand[row, head] into values (0 where it has
// none, or where present is false).
template <int kVec, int kChunks>
__device__ __forceinline__ void gather_lane_row(const DeviceOperand& operand, const LaneFeatures<kChunks>& f,
                                                int64_t row, int head, bool present, float (&values)[kChunks][kVec]) {
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    if (present && f.valid[j]) {
      operand.template load<kVec>(operand.at(row, head, f.feature[j]), values[j]);
    } else {
#pragma unroll
      for (int v = 0; v < kVec; ++v) values[j][v] = 0.0f;
    }
  }
}

// Sum over `width` consecutive lanes (a power of two, aligned), every lane taking part.
__device__ __forceinline__ float lanes_sum(float value, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}
// Sum over the entry slots: lanes `group` apart.
__device__ __forceinline__ float slots_sum(float value, int group) {
  for (int offset = group; offset < 32; offset *= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// Each lane's sums, added over the entry slots, into `into` (a row of [H, F]
// values): one atomic add per (head, feature), by slot 0. Every lane takes part.
template <int kVec, int kChunks>
__device__ __forceinline__ void add_slot_sums(const LaneFeatures<kChunks>& f, WholeRowLanes lanes, int head,
                                              int64_t features, const float (&sums)[kChunks][kVec], float* into) {
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      const float total = slots_sum(sums[j][v], lanes.group);
      if (f.slot == 0 && f.valid[j] && f.feature[j] + v < features) atomicAdd(into + head * features + f.feature[j] + v, total);
    }
  }
}

inline Gatv2Arguments arguments_of(const Csr& csr, const SparsePlan& plan, const Tensor& rows, const Tensor& columns,
                            const Tensor& a, float slope) {
  Gatv2Arguments args;
  args.indptr = offsets_of(csr.indptr);
  args.indices = csr.indices.data<int32_t>();
  args.segments = sparse_cuda::segment_list(plan, false);
  args.heads = static_cast<int>(rows.size(1));
  args.features = rows.size(2);
  const FeatureLayout layout{args.heads * args.features, args.features, 1};
  args.rows = device_operand(rows, layout);
  args.columns = device_operand(columns, layout);
  args.a = a.data<float>();
  args.slope = slope;
  return args;
}

// 16-byte accesses where every row is aligned (F a multiple of 4 floats or 8 bfloat16s).
inline int vector_width(const Tensor& rows, const Tensor& columns) {
  const int wide = rows.dtype() == DType::BFloat16 ? 8 : 4;
  const FeatureLayout layout{rows.size(1) * rows.size(2), rows.size(2), 1};
  return rows.size(2) % wide == 0 && vector_ready(rows, layout, wide) && vector_ready(columns, layout, wide) ? wide : 1;
}

// The whole-row layout where an entry's heads fit one warp: a head's
// features over a power of two of lanes (kVec each, at most two chunks),
// the heads side by side, the group rounded up to a power of two.
struct WholeRowLayout {
  WholeRowLanes lanes;
  int chunks = 1;
};
inline std::optional<WholeRowLayout> whole_row_layout(int heads, int64_t features, int vec) {
  const int64_t vectors = (features + vec - 1) / vec;
  if (vectors > 64) return std::nullopt;
  WholeRowLayout layout;
  layout.chunks = vectors > 32 ? 2 : 1;
  layout.lanes.per_head = sparse_cuda::next_power_of_two((vectors + layout.chunks - 1) / layout.chunks, 32);
  if (int64_t{heads} * layout.lanes.per_head > 32) return std::nullopt;
  layout.lanes.group = sparse_cuda::next_power_of_two(int64_t{heads} * layout.lanes.per_head, 32);
  return layout;
}

// Two or four entries in flight per group of lanes: fewer where each holds
// two chunks of features.
template <typename Launch>
inline void with_whole_rows(int vec, int chunks, const Launch& launch) {
  const auto by_chunks = [&](auto vec_constant) {
    if (chunks == 2) return launch(vec_constant, std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{});
    launch(vec_constant, std::integral_constant<int, 1>{}, std::integral_constant<int, 4>{});
  };
  if (vec == 8) return by_chunks(std::integral_constant<int, 8>{});
  if (vec == 4) return by_chunks(std::integral_constant<int, 4>{});
  by_chunks(std::integral_constant<int, 1>{});
}

}  // namespace sgnn::ops::gatv2_cuda
