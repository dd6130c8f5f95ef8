// The pieces of the CUDA edge softmax that its two translation units share
// (ops/cuda/edge_softmax.cu: the interleaved and per-head layouts and the
// entry points; ops/cuda/edge_softmax_entries.cu: the entry layout, a lane
// per entry with all kEntryHeads heads): where a row's scores come from (the
// Sources), the kernels' arguments, the online softmax's merge step, and the
// kernel that merges the split rows' segment partials.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/activation_math.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/cuda/entry_heads.cuh"

namespace sgnn::ops::edge_softmax_cuda {

using sparse_cuda::Offsets;
using sparse_cuda::kEntryHeads;
using sparse_cuda::Heads;
using sparse_cuda::load_raw_heads;
using sparse_cuda::store_heads;

// Scores stored as a tensor [nnz · heads] (edge_softmax).
template <typename T>
struct StoredScores {
  const T* scores;
  __device__ __forceinline__ float score(int64_t /*row*/, int64_t /*entry*/, int64_t /*head*/, int64_t k) const {
    return load_float_readonly(scores + k);
  }
  __device__ __forceinline__ float input_gradient(int64_t, int64_t, int64_t, int64_t, float grad_score) const {
    return grad_score;
  }
  // The entry layout (kEntryHeads heads a lane): an entry's scores as
  // loaded, read per head where used; the backward needs no scores.
  static constexpr bool kRecomputes = false;
  __device__ __forceinline__ void row_inputs(int64_t, Heads<T>&) const {}
  __device__ __forceinline__ Heads<T> load_entry(int64_t entry) const {
    return load_raw_heads(scores + entry * kEntryHeads);
  }
  __device__ __forceinline__ float entry_score(const Heads<T>&, const Heads<T>& loaded, int head) const {
    return loaded[head];
  }
  __device__ __forceinline__ float entry_gradient(float, float grad_score) const { return grad_score; }
  bool aligned() const { return sparse_cuda::aligned16(scores); }
};

// leaky_relu(x[row, head] + y[col(entry), head]), computed where it is used
// (attention_softmax). The sum in float, as sddmm_add computes it.
template <typename T>
struct AttentionScores {
  const T* x;  // [n_rows, heads]
  const T* y;  // [n_cols, heads]
  const int32_t* indices;
  int64_t heads;
  float negative_slope;
  __device__ __forceinline__ float sum(int64_t row, int64_t entry, int64_t head) const {
    return load_float_readonly(x + row * heads + head) +
           load_float_readonly(y + int64_t{__ldg(indices + entry)} * heads + head);
  }
  __device__ __forceinline__ float score(int64_t row, int64_t entry, int64_t head, int64_t) const {
    return activation_value(Activation::LeakyRelu, negative_slope, sum(row, entry, head));
  }
  __device__ __forceinline__ float input_gradient(int64_t row, int64_t entry, int64_t head, int64_t,
                                                  float grad_score) const {
    return activation_gradient(Activation::LeakyRelu, negative_slope, score(row, entry, head, 0), grad_score);
  }
  // The entry layout (kEntryHeads heads a lane): x[row] once per row, one
  // index and one vector of y per entry, kept as loaded; a score is the same
  // float sum as above, computed where it is used.
  static constexpr bool kRecomputes = true;
  __device__ __forceinline__ void row_inputs(int64_t row, Heads<T>& x_row) const {
    x_row = load_raw_heads(x + row * kEntryHeads);
  }
  __device__ __forceinline__ Heads<T> load_entry(int64_t entry) const {
    return load_raw_heads(y + int64_t{__ldg(indices + entry)} * kEntryHeads);
  }
  __device__ __forceinline__ float entry_score(const Heads<T>& x_row, const Heads<T>& y_row, int head) const {
    return activation_value(Activation::LeakyRelu, negative_slope, x_row[head] + y_row[head]);
  }
  __device__ __forceinline__ float entry_gradient(float score, float grad_score) const {
    return activation_gradient(Activation::LeakyRelu, negative_slope, score, grad_score);
  }
  bool aligned() const { return sparse_cuda::aligned16(x) && sparse_cuda::aligned16(y); }
};

// The plan's split rows (hub rows) in the entry and interleaved layouts: their entries
// cut into the plan's segments (at most segment_length entries each), a
// block per segment, in three launches, so a row of 10^5 entries spreads
// over a hundred blocks instead of setting the kernel's time on one (ncu,
// Reddit-scale GAT: a block per row took 5.3 ms a forward call, in float32
// and bfloat16 alike, while the other rows took 0.85 ms):
//   1. each segment's (maximum, sum of exponentials) per head, or in the
//      backward its Σ out·grad_out per head, into [segments, heads];
//   2. a warp per (split row, head) merges its segments' partials and
//      writes the row's totals over them (each segment then finds its row's
//      totals at its own index: no search for the row);
//   3. each segment writes its elements from its row's totals.
struct SplitRows {
  const int32_t* segment_row = nullptr;    // the plan's; split segments are [0, count)
  const int64_t* segment_begin = nullptr;
  int64_t count = 0;                       // split segments
  int64_t length = 0;                      // entries per segment at most
  const int64_t* offsets = nullptr;        // [rows + 1]: each split row's segments
  int64_t rows = 0;                        // split rows
  float* segment_max = nullptr;            // [count, heads] (forward): partials, then the row's totals
  float* segment_sum = nullptr;            // [count, heads]
};

// out (forward) or grad_out and the saved out (backward), and where the result goes.
template <typename T>
struct SoftmaxArguments {
  Offsets indptr;
  const int32_t* row_order;
  int64_t num_rows;
  int heads;
  int heads_shift;            // log2(heads), interleaved layout only
  int64_t long_row_entries;   // rows longer than this are split rows, the SplitRows kernels' (interleaved only)
  SplitRows split;
  const T* out;               // backward: the forward's output
  const T* grad_out;          // backward
  T* result;                  // forward: out; backward: the gradient of the scores
};

// Elements a lane loads before using any: the loads of a step (an index and
// the y it points to, for computed scores) are in flight together, where one
// at a time left every step waiting twice on L2 (16.5 ms a call on the
// Reddit-scale graph with 8 heads, ncu). Eight were slower (the split rows'
// partials: 2.2 against 1.9 ms a call, both precisions).
constexpr int kBatch = 4;
// Threads of the split-row kernels: a block per segment.
constexpr int kSplitThreads = sparse_cuda::kBlockThreads;
constexpr int kWarp = 32;

// exp(from − to) · value, 0 for a partial that has seen nothing (from = −inf).
__device__ __forceinline__ float rescale(float value, float from, float to) {
  return from == -INFINITY ? 0.0f : value * expf(from - to);
}

__device__ __forceinline__ void add_partial(float& maximum, float& sum, float other_maximum, float other_sum) {
  const float merged = fmaxf(maximum, other_maximum);
  sum = rescale(sum, maximum, merged) + rescale(other_sum, other_maximum, merged);
  maximum = merged;
}

// Split rows, launch 2: a warp per (split row, head) merges the row's segment
// partials (lane l takes segments l, l + 32, …; then a butterfly) and writes
// the totals over them.
template <bool kBackward, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) split_rows_kernel(SoftmaxArguments<T> args) {
  constexpr unsigned kFullWarp = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x) & (kWarp - 1);
  const int64_t heads = args.heads;
  const int64_t items = args.split.rows * heads;
  for (int64_t item = sparse_cuda::global_subwarp(kWarp); item < items; item += sparse_cuda::subwarp_count(kWarp)) {
    const int64_t k = item / heads;
    const int64_t head = item - k * heads;
    const int64_t first = args.split.offsets[k];
    const int64_t last = args.split.offsets[k + 1];
    float maximum = -INFINITY;
    float sum = 0.0f;
    for (int64_t s = first + lane; s < last; s += kWarp) {
      if constexpr (kBackward) sum += args.split.segment_sum[s * heads + head];
      else add_partial(maximum, sum, args.split.segment_max[s * heads + head], args.split.segment_sum[s * heads + head]);
    }
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
      if constexpr (kBackward) {
        sum += __shfl_xor_sync(kFullWarp, sum, offset);
      } else {
        add_partial(maximum, sum, __shfl_xor_sync(kFullWarp, maximum, offset), __shfl_xor_sync(kFullWarp, sum, offset));
      }
    }
    // Every lane holds the totals; the butterfly's shuffles ordered all reads before these writes.
    for (int64_t s = first + lane; s < last; s += kWarp) {
      args.split.segment_sum[s * heads + head] = sum;
      if constexpr (!kBackward) args.split.segment_max[s * heads + head] = maximum;
    }
  }
}

// The entry layout's launches (edge_softmax_entries.cu) for rows of `lanes`
// lanes (4, 8, 16 or 32), then, when args.split is set, its split rows.
// args.heads must be kEntryHeads, every operand 16-byte aligned.
template <typename T, typename Source>
void launch_entry_layout(bool backward, const SoftmaxArguments<T>& args, const Source& source, int lanes,
                         Device device);

}  // namespace sgnn::ops::edge_softmax_cuda
