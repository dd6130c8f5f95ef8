// CUDA edge softmax and the fused GAT attention softmax (ops/edge_softmax.hpp,
// ops/attention_softmax.hpp). A row's scores come from a Source: stored
// scores, or leaky_relu(x[row, h] + y[col(e), h]) computed on the fly, so the
// fused op never stores the scores.
//
// Three layouts of the work, each one subwarp per row (or row and head) in
// the plan's row order (longest rows first):
//   - entries (8 heads, edge_softmax_entries.cu): a lane per entry with all
//     its heads, one index and one vector load an entry;
//   - interleaved (heads a power of two ≤ 32): the subwarp walks the row's
//     [entries × heads] block as one contiguous range, lane l always on head
//     l mod heads, so every load and store is coalesced; the per-head maximum
//     and sum are merged over the lanes of the same head; the plan's split
//     rows (hub rows) are cut into its segments, a block each, whose partials
//     are merged per row in between (three more launches, SplitRows below);
//   - per head (any other head count): one subwarp per (row, head), a stride
//     of `heads` elements between consecutive entries.
// Each lane loads kBatch elements before using them (memory-level parallelism).
// Forward reads the scores once for the maximum and the sum together (online
// softmax: the running sum is rescaled when the maximum grows, partials are
// merged with shuffles), then writes exp(s − max) / sum. Backward: the
// subwarp sum of out · grad_out per head, then the elementwise update (and,
// fused, LeakyReLU's derivative from the recomputed score). The subwarp
// width follows the graph's mean row length (the cached plan). bfloat16
// inputs are read as float; max, sum and division in float, each result
// rounded once when stored. A fixed order of additions: deterministic.
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/cuda/edge_softmax_parts.cuh"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using namespace edge_softmax_cuda;
using sparse_cuda::offsets_of;

// One work item's elements and the head of this lane's elements.
// Interleaved: the [entries × heads] block of a row (or of a split row's
// segment), positions k (the element's index in the [nnz · heads] tensors,
// entry k >> heads_shift) and head lane mod heads. Per head: item =
// position × heads + head, positions are entries e, k = e · heads + head.
struct WorkRange {
  int64_t row, head, begin, end;
};

template <bool kInterleaved, typename T>
__device__ __forceinline__ WorkRange work_range(const SoftmaxArguments<T>& args, int64_t row, int64_t head) {
  const int64_t heads = args.heads;
  if constexpr (kInterleaved) return {row, head, args.indptr[row] * heads, args.indptr[row + 1] * heads};
  else return {row, head, args.indptr[row], args.indptr[row + 1]};
}

// Split segment s's elements (interleaved), this lane on head lane mod heads.
template <typename T>
__device__ __forceinline__ WorkRange segment_range(const SoftmaxArguments<T>& args, int64_t s, int lane) {
  const int64_t row = args.split.segment_row[s];
  const int64_t begin = args.split.segment_begin[s];
  const int64_t row_end = args.indptr[row + 1];
  const int64_t end = begin + args.split.length < row_end ? begin + args.split.length : row_end;
  return {row, lane & (args.heads - 1), begin * args.heads, end * args.heads};
}

template <bool kInterleaved, typename T>
__device__ __forceinline__ int64_t entry_of(const SoftmaxArguments<T>& args, int64_t position) {
  if constexpr (kInterleaved) return position >> args.heads_shift;
  else return position;
}
template <bool kInterleaved, typename T>
__device__ __forceinline__ int64_t element_of(const SoftmaxArguments<T>& args, const WorkRange& w, int64_t position) {
  if constexpr (kInterleaved) return position;
  else return position * args.heads + w.head;
}

// Merges the (maximum, sum) or sum partials of the kThreads threads of a work
// item into every thread: shuffles over lanes that share a head (offsets
// down to `heads` when interleaved), then, for a block, through shared memory.
template <int kThreads>
struct Merge {
  static constexpr int kLanes = kThreads < kWarp ? kThreads : kWarp;
  static constexpr int kWarps = kThreads / kLanes;
  float (*maximum)[kWarp];  // [kWarps][kWarp] shared (blocks only)
  float (*sum)[kWarp];

  __device__ __forceinline__ void softmax(float& m, float& s, int lane, int down_to) const {
    const unsigned mask = sparse_cuda::subwarp_mask<kLanes>();
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2) {
      if (offset < down_to) break;
      add_partial(m, s, __shfl_xor_sync(mask, m, offset, kLanes), __shfl_xor_sync(mask, s, offset, kLanes));
    }
    if constexpr (kWarps > 1) {
      const int warp = lane / kWarp;
      const int in_warp = lane & (kWarp - 1);
      __syncthreads();  // the previous item's reads are done
      if (in_warp < down_to) {
        maximum[warp][in_warp] = m;
        sum[warp][in_warp] = s;
      }
      __syncthreads();
      m = maximum[0][in_warp & (down_to - 1)];
      s = sum[0][in_warp & (down_to - 1)];
#pragma unroll
      for (int other = 1; other < kWarps; ++other) {
        add_partial(m, s, maximum[other][in_warp & (down_to - 1)], sum[other][in_warp & (down_to - 1)]);
      }
    }
  }

  __device__ __forceinline__ float total(float value, int lane, int down_to) const {
    const unsigned mask = sparse_cuda::subwarp_mask<kLanes>();
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2) {
      if (offset < down_to) break;
      value += __shfl_xor_sync(mask, value, offset, kLanes);
    }
    if constexpr (kWarps > 1) {
      const int warp = lane / kWarp;
      const int in_warp = lane & (kWarp - 1);
      __syncthreads();
      if (in_warp < down_to) sum[warp][in_warp] = value;
      __syncthreads();
      value = 0.0f;
#pragma unroll
      for (int other = 0; other < kWarps; ++other) value += sum[other][in_warp & (down_to - 1)];
    }
    return value;
  }
};

// The work item's row and head: a subwarp per row (interleaved) or per
// (row, head) in the plan's row order. skip (false): a split row, the SplitRows kernels' work.
template <bool kInterleaved, typename T>
__device__ __forceinline__ bool item_row(const SoftmaxArguments<T>& args, int64_t item, int lane, int64_t& row,
                                         int64_t& head) {
  if constexpr (kInterleaved) {
    row = args.row_order[item];
    head = lane & (args.heads - 1);
    return args.indptr[row + 1] - args.indptr[row] <= args.long_row_entries;
  } else {
    row = args.row_order[item / args.heads];
    head = item % args.heads;
    return true;
  }
}

// The scores of this thread's positions base + u · kThreads (u < kBatch)
// that lie before w.end, every load issued before any is used.
template <bool kInterleaved, int kThreads, typename T, typename Source>
__device__ __forceinline__ void load_scores(const SoftmaxArguments<T>& args, const Source& source, const WorkRange& w,
                                            int64_t base, float (&score)[kBatch]) {
#pragma unroll
  for (int u = 0; u < kBatch; ++u) {
    const int64_t position = base + u * kThreads;
    if (position < w.end) {
      score[u] = source.score(w.row, entry_of<kInterleaved>(args, position), w.head,
                              element_of<kInterleaved>(args, w, position));
    }
  }
}

// The forward's first pass over this thread's elements of w: the running
// maximum and the sum of exponentials relative to it (online softmax).
template <bool kInterleaved, int kThreads, typename T, typename Source>
__device__ __forceinline__ void accumulate_softmax(const SoftmaxArguments<T>& args, const Source& source,
                                                   const WorkRange& w, int lane, float& maximum, float& sum) {
  for (int64_t base = w.begin + lane; base < w.end; base += kBatch * kThreads) {
    float score[kBatch];
    load_scores<kInterleaved, kThreads>(args, source, w, base, score);
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (base + u * kThreads >= w.end) break;
      if (score[u] > maximum) {
        sum = rescale(sum, maximum, score[u]) + 1.0f;
        maximum = score[u];
      } else {
        sum += expf(score[u] - maximum);
      }
    }
  }
}

// The forward's second pass: exp(s − maximum) / sum for this thread's elements of w.
template <bool kInterleaved, int kThreads, typename T, typename Source>
__device__ __forceinline__ void write_softmax(const SoftmaxArguments<T>& args, const Source& source,
                                              const WorkRange& w, int lane, float maximum, float sum) {
  for (int64_t base = w.begin + lane; base < w.end; base += kBatch * kThreads) {
    float score[kBatch];
    load_scores<kInterleaved, kThreads>(args, source, w, base, score);
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t position = base + u * kThreads;
      if (position < w.end) {
        args.result[element_of<kInterleaved>(args, w, position)] = store_as<T>(expf(score[u] - maximum) / sum);
      }
    }
  }
}

// The backward's first pass: Σ out · grad_out over this thread's elements of w.
template <bool kInterleaved, int kThreads, typename T>
__device__ __forceinline__ float accumulate_weighted(const SoftmaxArguments<T>& args, const WorkRange& w, int lane) {
  float weighted = 0.0f;
  for (int64_t base = w.begin + lane; base < w.end; base += kBatch * kThreads) {
    float product[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t position = base + u * kThreads;
      const int64_t k = element_of<kInterleaved>(args, w, position);
      product[u] = position < w.end ? load_float_readonly(args.out + k) * load_float_readonly(args.grad_out + k) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) weighted += product[u];
  }
  return weighted;
}

// The backward's second pass: out · (grad_out − weighted), through the source's input gradient.
template <bool kInterleaved, int kThreads, typename T, typename Source>
__device__ __forceinline__ void write_gradient(const SoftmaxArguments<T>& args, const Source& source,
                                               const WorkRange& w, int lane, float weighted) {
  for (int64_t base = w.begin + lane; base < w.end; base += kBatch * kThreads) {
    float grad_score[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t position = base + u * kThreads;
      const int64_t k = element_of<kInterleaved>(args, w, position);
      if (position < w.end) {
        grad_score[u] = load_float_readonly(args.out + k) * (load_float_readonly(args.grad_out + k) - weighted);
      }
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t position = base + u * kThreads;
      if (position < w.end) {
        const int64_t k = element_of<kInterleaved>(args, w, position);
        args.result[k] = store_as<T>(
            source.input_gradient(w.row, entry_of<kInterleaved>(args, position), w.head, k, grad_score[u]));
      }
    }
  }
}

template <bool kInterleaved, int kThreads, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    edge_softmax_forward_kernel(SoftmaxArguments<T> args, Source source) {
  const Merge<kThreads> merge{nullptr, nullptr};
  const int lane = static_cast<int>(threadIdx.x) & (kThreads - 1);
  // Interleaved, threads a multiple of `heads` apart hold the same head.
  const int merge_down_to = kInterleaved ? args.heads : 1;
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kThreads); item < items; item += sparse_cuda::subwarp_count(kThreads)) {
    int64_t row, head;
    if (!item_row<kInterleaved>(args, item, lane, row, head)) continue;
    const WorkRange w = work_range<kInterleaved>(args, row, head);
    float maximum = -INFINITY;
    float sum = 0.0f;
    accumulate_softmax<kInterleaved, kThreads>(args, source, w, lane, maximum, sum);
    merge.softmax(maximum, sum, lane, merge_down_to);
    write_softmax<kInterleaved, kThreads>(args, source, w, lane, maximum, sum);
  }
}

template <bool kInterleaved, int kThreads, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    edge_softmax_backward_kernel(SoftmaxArguments<T> args, Source source) {
  const Merge<kThreads> merge{nullptr, nullptr};
  const int lane = static_cast<int>(threadIdx.x) & (kThreads - 1);
  const int merge_down_to = kInterleaved ? args.heads : 1;
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kThreads); item < items; item += sparse_cuda::subwarp_count(kThreads)) {
    int64_t row, head;
    if (!item_row<kInterleaved>(args, item, lane, row, head)) continue;
    const WorkRange w = work_range<kInterleaved>(args, row, head);
    const float weighted = merge.total(accumulate_weighted<kInterleaved, kThreads>(args, w, lane), lane, merge_down_to);
    write_gradient<kInterleaved, kThreads>(args, source, w, lane, weighted);
  }
}

// Split rows, launch 1: a block per segment, its partials per head.
template <bool kBackward, typename T, typename Source>
__global__ void __launch_bounds__(kSplitThreads) split_partials_kernel(SoftmaxArguments<T> args, Source source) {
  __shared__ float shared_maximum[Merge<kSplitThreads>::kWarps][kWarp];
  __shared__ float shared_sum[Merge<kSplitThreads>::kWarps][kWarp];
  const Merge<kSplitThreads> merge{shared_maximum, shared_sum};
  const int lane = static_cast<int>(threadIdx.x);
  for (int64_t s = blockIdx.x; s < args.split.count; s += gridDim.x) {
    const WorkRange w = segment_range(args, s, lane);
    const int64_t at = s * args.heads + lane;  // written by the first `heads` threads, lane = head
    if constexpr (kBackward) {
      const float weighted = merge.total(accumulate_weighted<true, kSplitThreads>(args, w, lane), lane, args.heads);
      if (lane < args.heads) args.split.segment_sum[at] = weighted;
    } else {
      float maximum = -INFINITY;
      float sum = 0.0f;
      accumulate_softmax<true, kSplitThreads>(args, source, w, lane, maximum, sum);
      merge.softmax(maximum, sum, lane, args.heads);
      if (lane < args.heads) {
        args.split.segment_max[at] = maximum;
        args.split.segment_sum[at] = sum;
      }
    }
  }
}

// Split rows, launch 3: a block per segment writes its elements from its row's totals.
template <bool kBackward, typename T, typename Source>
__global__ void __launch_bounds__(kSplitThreads) split_write_kernel(SoftmaxArguments<T> args, Source source) {
  const int lane = static_cast<int>(threadIdx.x);
  for (int64_t s = blockIdx.x; s < args.split.count; s += gridDim.x) {
    const WorkRange w = segment_range(args, s, lane);
    const int64_t at = s * args.heads + w.head;
    if constexpr (kBackward) {
      write_gradient<true, kSplitThreads>(args, source, w, lane, args.split.segment_sum[at]);
    } else {
      write_softmax<true, kSplitThreads>(args, source, w, lane, args.split.segment_max[at], args.split.segment_sum[at]);
    }
  }
}

template <bool kInterleaved, int kThreads, typename T, typename Source>
void launch(bool backward, const SoftmaxArguments<T>& args, const Source& source, Device device) {
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  if (items == 0) return;
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kThreads, device);
  cudaStream_t stream = cuda::stream(device);
  if (backward) {
    edge_softmax_backward_kernel<kInterleaved, kThreads><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_backward_kernel");
  } else {
    edge_softmax_forward_kernel<kInterleaved, kThreads><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_forward_kernel");
  }
}

// The three launches of the split rows (args.split set, its workspaces allocated).
template <bool kBackward, typename T, typename Source>
void launch_split_rows(const SoftmaxArguments<T>& args, const Source& source, Device device) {
  cudaStream_t stream = cuda::stream(device);
  const unsigned segment_blocks = sparse_cuda::subwarp_blocks(args.split.count, kSplitThreads, device);
  split_partials_kernel<kBackward><<<segment_blocks, kSplitThreads, 0, stream>>>(args, source);
  SGNN_CUDA_CHECK_LAUNCH("split_partials_kernel");
  const unsigned row_blocks = sparse_cuda::subwarp_blocks(args.split.rows * args.heads, kWarp, device);
  split_rows_kernel<kBackward><<<row_blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("split_rows_kernel");
  split_write_kernel<kBackward><<<segment_blocks, kSplitThreads, 0, stream>>>(args, source);
  SGNN_CUDA_CHECK_LAUNCH("split_write_kernel");
}

bool is_power_of_two(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

// Picks the layout and the subwarp width: the entry layout for kEntryHeads
// heads with aligned operands (lanes for the mean row's entries), else
// interleaved for power-of-two head counts up to 32 (lanes for the mean row's
// entries × heads, at least `heads`), else per head; at least 4 lanes. In the
// entry and interleaved layouts the plan's split rows (longer than its
// segments) go to the SplitRows kernels.
template <typename T, typename Source>
void run(bool backward, const Csr& csr, int64_t heads, const SoftmaxArguments<T>& partial, const Source& source,
         Device device) {
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  SoftmaxArguments<T> args = partial;
  args.indptr = offsets_of(csr.indptr);
  args.row_order = plan->row_order.data<int32_t>();
  args.num_rows = csr.num_rows;
  args.heads = static_cast<int>(heads);
  while ((int64_t{1} << args.heads_shift) < heads) ++args.heads_shift;
  const bool interleaved = is_power_of_two(heads) && heads <= kWarp;
  // kEntryHeads heads with 16-byte aligned operands: a lane per entry (edge_softmax_entries.cu).
  const bool entry_layout = heads == kEntryHeads && source.aligned() && sparse_cuda::aligned16(args.out) &&
                            sparse_cuda::aligned16(args.grad_out) && sparse_cuda::aligned16(args.result);
  args.long_row_entries = std::numeric_limits<int64_t>::max();
  const bool split = interleaved && plan->num_split_rows > 0;
  // The split rows' partials and totals, freed in stream order after the launches.
  Tensor segment_partials;
  if (split) {
    args.long_row_entries = plan->segment_length;
    segment_partials = Tensor::empty({2, plan->split_segments, heads}, DType::Float32, device);
    SplitRows& s = args.split;
    s.segment_row = plan->segment_row.data<int32_t>();
    s.segment_begin = plan->segment_begin.data<int64_t>();
    s.count = plan->split_segments;
    s.length = plan->segment_length;
    s.offsets = plan->split_offsets.data<int64_t>();
    s.rows = plan->num_split_rows;
    s.segment_max = segment_partials.data<float>();
    s.segment_sum = s.segment_max + s.count * heads;
  }
  if (entry_layout) {
    const int lanes = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(plan->mean_row_length)), kWarp);
    return launch_entry_layout(backward, args, source, lanes, device);
  }
  const double elements = plan->mean_row_length * static_cast<double>(interleaved ? heads : 1);
  int sub = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(elements)), kWarp);
  if (interleaved) sub = std::max<int>(sub, static_cast<int>(heads));
  auto go = [&](auto layout) {
    constexpr bool kInterleaved = decltype(layout)::value;
    if (sub <= 4) launch<kInterleaved, 4>(backward, args, source, device);
    else if (sub == 8) launch<kInterleaved, 8>(backward, args, source, device);
    else if (sub == 16) launch<kInterleaved, 16>(backward, args, source, device);
    else launch<kInterleaved, 32>(backward, args, source, device);
  };
  if (interleaved) go(std::true_type{});
  else go(std::false_type{});
  if (split) {
    if (backward) launch_split_rows<true>(args, source, device);
    else launch_split_rows<false>(args, source, device);
  }
}

}  // namespace

void edge_softmax_forward(Cuda, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out) {
  if (out.numel() == 0) return;
  visit_floating(scores.dtype(), [&](auto element) {
    using T = decltype(element);
    SoftmaxArguments<T> args{};
    args.result = out.data<T>();
    run(false, csr, heads, args, StoredScores<T>{scores.data<T>()}, scores.device());
  });
}

void edge_softmax_backward(Cuda, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores) {
  if (grad_scores.numel() == 0) return;
  visit_floating(out.dtype(), [&](auto element) {
    using T = decltype(element);
    SoftmaxArguments<T> args{};
    args.out = out.data<T>();
    args.grad_out = grad_out.data<T>();
    args.result = grad_scores.data<T>();
    run(true, csr, heads, args, StoredScores<T>{nullptr}, out.device());
  });
}

void attention_softmax_forward(Cuda, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                               const Tensor& y, Tensor& out) {
  if (out.numel() == 0) return;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    SoftmaxArguments<T> args{};
    args.result = out.data<T>();
    const AttentionScores<T> source{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    run(false, csr, heads, args, source, x.device());
  });
}

void attention_softmax_backward(Cuda, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                                const Tensor& y, const Tensor& out, const Tensor& grad_out, Tensor& grad_sums) {
  if (grad_sums.numel() == 0) return;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    SoftmaxArguments<T> args{};
    args.out = out.data<T>();
    args.grad_out = grad_out.data<T>();
    args.result = grad_sums.data<T>();
    const AttentionScores<T> source{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    run(true, csr, heads, args, source, x.device());
  });
}

}  // namespace sgnn::ops
