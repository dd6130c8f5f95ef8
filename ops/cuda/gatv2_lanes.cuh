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

// Where this lane's chunks lie within a row of an [n, H, F] operand (in
// elements; every operand of a launch has the same layout): chunk j at
// first + j · step. Every chunk but the last lies inside the head's features
// (chunks = ceil(vectors / lanes per head)); the last is moved back to the
// head's last vector where it would pass it, and a lane past the last head
// reads the last head: a[] is 0 there and nothing computed from it is
// stored, so the loads need no branch. Three registers whatever the chunks
// (a register per chunk and operand spilled at one head of 41).
struct LaneOffsets {
  int32_t first, step, last_chunk;  // last_chunk: from the first chunk to the last
  template <int kVec, int kChunks>
  __device__ __forceinline__ static LaneOffsets make(const LaneFeatures<kChunks>& f, WholeRowLanes lanes, int heads,
                                                     int64_t features) {
    const int64_t head = f.head < heads ? f.head : heads - 1;
    const auto first = static_cast<int32_t>(head * features + f.feature[0]);
    const int32_t step = lanes.per_head * kVec;
    const auto head_last = static_cast<int32_t>(head * features + features - kVec);
    return {first, step, min((kChunks - 1) * step, head_last - first)};
  }
};

// This lane's chunks of row `row` of data (T float or bfloat16, rows
// row_stride elements apart) into values, kVec elements an access
// (spmm_cuda::Vector): one 32 x 32 -> 64-bit multiply-add for the row's
// address (rows are int32 node ids, a row's H·F elements fit 32 bits), one
// add a chunk. The runtime-typed DeviceOperand load (a type test and three
// 64-bit products per chunk) left these kernels issue-bound (ncu, one head
// of 41: 78 warp instructions an entry, 14 % of them arithmetic).
template <int kVec, int kChunks, typename T>
__device__ __forceinline__ void load_lane_row(const T* __restrict__ data, int64_t row_stride, LaneOffsets offsets,
                                              int64_t row, float (&values)[kChunks][kVec]) {
  const T* chunk = data + offsets.first + uint64_t{static_cast<uint32_t>(row)} * static_cast<uint32_t>(row_stride);
  const T* last = chunk + offsets.last_chunk;
#pragma unroll
  for (int j = 0; j + 1 < kChunks; ++j) {
    spmm_cuda::Vector<T, kVec>::load(chunk, values[j]);
    chunk += offsets.step;
  }
  spmm_cuda::Vector<T, kVec>::load(last, values[kChunks - 1]);
}

// An operand's typed pointer: T is the dtype the host dispatched on.
template <typename T>
__device__ __forceinline__ const T* typed_data(const DeviceOperand& operand) {
  if constexpr (std::is_same_v<T, float>) return operand.f32;
  else return operand.bf16;
}

// The element type of both GATv2 operands (they share one dtype):
// launch(std::type_identity<T>{}).
template <typename Launch>
inline void with_element_type(DType dtype, const Launch& launch) {
  if (dtype == DType::BFloat16) return launch(std::type_identity<bfloat16>{});
  launch(std::type_identity<float>{});
}

// Sum over `width` consecutive lanes (a power of two, aligned), every lane
// taking part; width is the same in every lane. Every step's shuffle runs and
// only the add depends on width: two instructions a step, where a loop over
// width/2, width/4, ... (or a branch per step) cost 6-9, a convergence check
// and branches among them (ncu, cuobjdump). The sums are added in the same
// order as that loop's.
__device__ __forceinline__ float lanes_sum(float value, int width) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    if (offset < width) value += other;
  }
  return value;
}
// Sum over the entry slots: lanes `group` apart.
__device__ __forceinline__ float slots_sum(float value, int group) {
  for (int offset = group; offset < 32; offset *= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// Each lane's sums, added over the entry slots, into `into` (a row of [H, F]
// values) by slot 0: an atomic add per (head, feature) (kAtomic), or a store
// where `into` is the caller's own row (deterministic mode's partials).
// Every lane takes part.
template <int kVec, int kChunks, bool kAtomic = true>
__device__ __forceinline__ void add_slot_sums(const LaneFeatures<kChunks>& f, WholeRowLanes lanes, int head,
                                              int64_t features, const float (&sums)[kChunks][kVec], float* into) {
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      const float total = slots_sum(sums[j][v], lanes.group);
      if (f.slot == 0 && f.valid[j] && f.feature[j] + v < features) {
        float* const at = into + head * features + f.feature[j] + v;
        if constexpr (kAtomic) atomicAdd(at, total);
        else *at = total;
      }
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
// two chunks of features. launch(type, vec, chunks, unroll), the element
// type as with_element_type gives it (8 a chunk only in bfloat16).
template <typename Launch>
inline void with_whole_rows(DType dtype, int vec, int chunks, const Launch& launch) {
  with_element_type(dtype, [&](auto type) {
    const auto by_chunks = [&](auto vec_constant) {
      if (chunks == 2) {
        return launch(type, vec_constant, std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{});
      }
      launch(type, vec_constant, std::integral_constant<int, 1>{}, std::integral_constant<int, 4>{});
    };
    if constexpr (std::is_same_v<typename decltype(type)::type, bfloat16>) {
      if (vec == 8) return by_chunks(std::integral_constant<int, 8>{});
    } else {
      if (vec == 4) return by_chunks(std::integral_constant<int, 4>{});
    }
    by_chunks(std::integral_constant<int, 1>{});
  });
}

}  // namespace sgnn::ops::gatv2_cuda
