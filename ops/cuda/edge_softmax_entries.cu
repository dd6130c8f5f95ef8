// The entry layout of the CUDA edge softmax (ops/cuda/edge_softmax.cu): for
// kEntryHeads heads (GAT's 8), a lane takes whole entries, all heads at once:
// one column index and one 16- or 32-byte vector of y (or of the stored
// scores) per entry, the row's x once per row, outputs stored as vectors.
// The interleaved layout spends a lane per (entry, head) element: eight index
// loads and eight scalar loads an entry, which made its kernels bound by
// issued instructions, at the same time in float32 and bfloat16 (ncu,
// Reddit-scale GAT: 109M entries × 8 heads, 2-4 ms a call).
// A subwarp per row (rows in the plan's order); the plan's split rows a warp
// per segment, merged as in the interleaved layout (SplitRows). Forward: per
// lane and head a running maximum and sum over batches of kBatch entries
// (rescaled once a batch), then the item's maximum, each lane's sum rescaled
// to it, and their total; then exp(s − max) · (1 / sum). Backward: Σ out·grad_out
// per head, then out·(grad_out − Σ), through LeakyReLU's derivative for the
// fused op. Float arithmetic, each stored value rounded once; a fixed order
// of operations: deterministic.
#include <cmath>
#include <cstdint>

#include "ops/cuda/edge_softmax_parts.cuh"

namespace sgnn::ops::edge_softmax_cuda {

namespace {

constexpr int kHeads = kEntryHeads;

struct Entries {
  int64_t row, begin, end;  // the item's entries [begin, end) of `row`
};

// Each of v's kHeads values combined by `op` over the item's kThreads lanes
// (a subwarp, by shuffles); every lane gets the results.
template <int kThreads, typename Op>
__device__ __forceinline__ void combine(float (&v)[kHeads], Op op) {
  static_assert(kThreads <= kWarp, "an item is a subwarp");
  const unsigned mask = sparse_cuda::subwarp_mask<kThreads>();
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
#pragma unroll
    for (int offset = kThreads / 2; offset > 0; offset /= 2) {
      v[h] = op(v[h], __shfl_xor_sync(mask, v[h], offset, kThreads));
    }
  }
}

struct Maximum {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// The forward's statistics of the item: per head the maximum score and the sum of exp(s − maximum).
template <int kThreads, typename T, typename Source>
__device__ __forceinline__ void softmax_statistics(const Source& source, const Heads<T>& x_row,
                                                   const Entries& entries, int lane, float (&maximum)[kHeads],
                                                   float (&sum)[kHeads]) {
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
    maximum[h] = -INFINITY;
    sum[h] = 0.0f;
  }
  for (int64_t base = entries.begin + lane; base < entries.end; base += kBatch * kThreads) {
    Heads<T> loaded[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (base + u * kThreads < entries.end) loaded[u] = source.load_entry(base + u * kThreads);
    }
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      float batch_maximum = maximum[h];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (base + u * kThreads < entries.end) {
          batch_maximum = fmaxf(batch_maximum, source.entry_score(x_row, loaded[u], h));
        }
      }
      sum[h] = rescale(sum[h], maximum[h], batch_maximum);
      maximum[h] = batch_maximum;
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (base + u * kThreads < entries.end) sum[h] += expf(source.entry_score(x_row, loaded[u], h) - batch_maximum);
      }
    }
  }
  // The item's maximum, each thread's sum moved to it, and their total.
  float item_maximum[kHeads];
#pragma unroll
  for (int h = 0; h < kHeads; ++h) item_maximum[h] = maximum[h];
  combine<kThreads>(item_maximum, Maximum{});
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
    sum[h] = rescale(sum[h], maximum[h], item_maximum[h]);
    maximum[h] = item_maximum[h];
  }
  combine<kThreads>(sum, Sum{});
}

template <int kThreads, typename T, typename Source>
__device__ __forceinline__ void write_softmax(const SoftmaxArguments<T>& args, const Source& source,
                                              const Heads<T>& x_row, const Entries& entries, int lane,
                                              const float (&maximum)[kHeads], const float (&sum)[kHeads]) {
  // One division per head and item, a multiplication per element: eight
  // IEEE divisions an entry made this pass twice as long as the first (ncu);
  // the product is within an ulp of the quotient.
  float inverse[kHeads];
#pragma unroll
  for (int h = 0; h < kHeads; ++h) inverse[h] = 1.0f / sum[h];
  for (int64_t base = entries.begin + lane; base < entries.end; base += kBatch * kThreads) {
    Heads<T> loaded[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (base + u * kThreads < entries.end) loaded[u] = source.load_entry(base + u * kThreads);
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t e = base + u * kThreads;
      if (e >= entries.end) continue;
      float out[kHeads];
#pragma unroll
      for (int h = 0; h < kHeads; ++h) out[h] = expf(source.entry_score(x_row, loaded[u], h) - maximum[h]) * inverse[h];
      store_heads(args.result + e * kHeads, out);
    }
  }
}

// The backward's Σ out · grad_out per head over the item.
template <int kThreads, typename T>
__device__ __forceinline__ void weighted_sums(const SoftmaxArguments<T>& args, const Entries& entries, int lane,
                                              float (&weighted)[kHeads]) {
#pragma unroll
  for (int h = 0; h < kHeads; ++h) weighted[h] = 0.0f;
  for (int64_t base = entries.begin + lane; base < entries.end; base += kBatch * kThreads) {
    Heads<T> out[kBatch], grad[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t e = base + u * kThreads;
      if (e < entries.end) {
        out[u] = load_raw_heads(args.out + e * kHeads);
        grad[u] = load_raw_heads(args.grad_out + e * kHeads);
      }
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (base + u * kThreads >= entries.end) continue;
#pragma unroll
      for (int h = 0; h < kHeads; ++h) weighted[h] += out[u][h] * grad[u][h];
    }
  }
  combine<kThreads>(weighted, Sum{});
}

template <int kThreads, typename T, typename Source>
__device__ __forceinline__ void write_gradient(const SoftmaxArguments<T>& args, const Source& source,
                                               const Heads<T>& x_row, const Entries& entries, int lane,
                                               const float (&weighted)[kHeads]) {
  for (int64_t base = entries.begin + lane; base < entries.end; base += kBatch * kThreads) {
    Heads<T> out[kBatch], grad[kBatch], loaded[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t e = base + u * kThreads;
      if (e < entries.end) {
        out[u] = load_raw_heads(args.out + e * kHeads);
        grad[u] = load_raw_heads(args.grad_out + e * kHeads);
        if constexpr (Source::kRecomputes) loaded[u] = source.load_entry(e);
      }
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t e = base + u * kThreads;
      if (e >= entries.end) continue;
      float result[kHeads];
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        const float grad_score = out[u][h] * (grad[u][h] - weighted[h]);
        result[h] = Source::kRecomputes ? source.entry_gradient(source.entry_score(x_row, loaded[u], h), grad_score)
                                        : grad_score;
      }
      store_heads(args.result + e * kHeads, result);
    }
  }
}

// Blocks an SM must hold (0: as the compiler sets it). The forward's
// bfloat16 kernels at four (64 registers, 16 bytes spilled) beat their
// natural 74-78 registers (three blocks) on the Reddit-scale GAT: ncu over
// two epochs, rows 3.88 -> 3.49 ms, split partials 6.13 -> 5.42 ms; the step
// 40.09 -> 39.85 ms (H100). Float's forward held to three blocks (80
// registers, 40 bytes spilled) made its step slower (60.1 -> 60.4 ms). An
// explicit minimum of 1 is not "unset": ptxas then gave float's forward
// 105-112 registers instead of 80-100.
template <bool kBackward, typename T>
inline constexpr int kMinBlocks = (!kBackward && sizeof(T) == 2) ? 4 : 0;

// A subwarp of kThreads lanes per row in the plan's order; split rows are skipped (the kernels below).
template <bool kBackward, int kThreads, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, kMinBlocks<kBackward, T>)
    entry_rows_kernel(SoftmaxArguments<T> args, Source source) {
  const int lane = static_cast<int>(threadIdx.x) & (kThreads - 1);
  for (int64_t item = sparse_cuda::global_subwarp(kThreads); item < args.num_rows;
       item += sparse_cuda::subwarp_count(kThreads)) {
    const int64_t row = args.row_order[item];
    const Entries entries{row, args.indptr[row], args.indptr[row + 1]};
    if (entries.end - entries.begin > args.long_row_entries) continue;
    Heads<T> x_row{};
    source.row_inputs(row, x_row);
    if constexpr (kBackward) {
      float weighted[kHeads];
      weighted_sums<kThreads>(args, entries, lane, weighted);
      write_gradient<kThreads>(args, source, x_row, entries, lane, weighted);
    } else {
      float maximum[kHeads], sum[kHeads];
      softmax_statistics<kThreads, T>(source, x_row, entries, lane, maximum, sum);
      write_softmax<kThreads>(args, source, x_row, entries, lane, maximum, sum);
    }
  }
}

// Split segment s's entries.
template <typename T>
__device__ __forceinline__ Entries segment_entries(const SoftmaxArguments<T>& args, int64_t s) {
  const int64_t row = args.split.segment_row[s];
  const int64_t begin = args.split.segment_begin[s];
  const int64_t row_end = args.indptr[row + 1];
  return {row, begin, begin + args.split.length < row_end ? begin + args.split.length : row_end};
}

// Split rows, launch 1: a warp per segment, its partials per head. (A block
// per segment of at most 1024 entries left each thread one batch between
// two block-wide merges: 2.7 ms a call for the Reddit-scale graph's split
// rows, against 1.25 ms for all its other rows.)
template <bool kBackward, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, kMinBlocks<kBackward, T>)
    entry_split_partials_kernel(SoftmaxArguments<T> args, Source source) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarp - 1);
  for (int64_t s = sparse_cuda::global_subwarp(kWarp); s < args.split.count; s += sparse_cuda::subwarp_count(kWarp)) {
    const Entries entries = segment_entries(args, s);
    Heads<T> x_row{};
    source.row_inputs(entries.row, x_row);
    float maximum[kHeads], sum[kHeads];
    if constexpr (kBackward) {
      weighted_sums<kWarp>(args, entries, lane, sum);
    } else {
      softmax_statistics<kWarp, T>(source, x_row, entries, lane, maximum, sum);
    }
    if (lane == 0) {
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        args.split.segment_sum[s * kHeads + h] = sum[h];
        if constexpr (!kBackward) args.split.segment_max[s * kHeads + h] = maximum[h];
      }
    }
  }
}

// Split rows, launch 3: a warp per segment writes its entries from its row's totals.
template <bool kBackward, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, kMinBlocks<kBackward, T>)
    entry_split_write_kernel(SoftmaxArguments<T> args, Source source) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarp - 1);
  for (int64_t s = sparse_cuda::global_subwarp(kWarp); s < args.split.count; s += sparse_cuda::subwarp_count(kWarp)) {
    const Entries entries = segment_entries(args, s);
    Heads<T> x_row{};
    source.row_inputs(entries.row, x_row);
    float maximum[kHeads], sum[kHeads];
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      sum[h] = args.split.segment_sum[s * kHeads + h];
      maximum[h] = kBackward ? 0.0f : args.split.segment_max[s * kHeads + h];
    }
    if constexpr (kBackward) write_gradient<kWarp>(args, source, x_row, entries, lane, sum);
    else write_softmax<kWarp>(args, source, x_row, entries, lane, maximum, sum);
  }
}

template <bool kBackward, int kThreads, typename T, typename Source>
void launch_rows(const SoftmaxArguments<T>& args, const Source& source, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.num_rows, kThreads, device);
  entry_rows_kernel<kBackward, kThreads><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args, source);
  SGNN_CUDA_CHECK_LAUNCH("entry_rows_kernel");
}

template <bool kBackward, typename T, typename Source>
void launch_all(const SoftmaxArguments<T>& args, const Source& source, int lanes, Device device) {
  if (args.num_rows > 0) {
    if (lanes <= 4) launch_rows<kBackward, 4>(args, source, device);
    else if (lanes == 8) launch_rows<kBackward, 8>(args, source, device);
    else if (lanes == 16) launch_rows<kBackward, 16>(args, source, device);
    else launch_rows<kBackward, kWarp>(args, source, device);
  }
  if (args.split.count == 0) return;
  cudaStream_t stream = cuda::stream(device);
  const unsigned segment_blocks = sparse_cuda::subwarp_blocks(args.split.count, kWarp, device);
  entry_split_partials_kernel<kBackward><<<segment_blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
  SGNN_CUDA_CHECK_LAUNCH("entry_split_partials_kernel");
  const unsigned row_blocks = sparse_cuda::subwarp_blocks(args.split.rows * kHeads, kWarp, device);
  split_rows_kernel<kBackward><<<row_blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("split_rows_kernel");
  entry_split_write_kernel<kBackward><<<segment_blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
  SGNN_CUDA_CHECK_LAUNCH("entry_split_write_kernel");
}

}  // namespace

template <typename T, typename Source>
void launch_entry_layout(bool backward, const SoftmaxArguments<T>& args, const Source& source, int lanes,
                         Device device) {
  if (backward) launch_all<true>(args, source, lanes, device);
  else launch_all<false>(args, source, lanes, device);
}

template void launch_entry_layout(bool, const SoftmaxArguments<float>&, const StoredScores<float>&, int, Device);
template void launch_entry_layout(bool, const SoftmaxArguments<bfloat16>&, const StoredScores<bfloat16>&, int, Device);
template void launch_entry_layout(bool, const SoftmaxArguments<float>&, const AttentionScores<float>&, int, Device);
template void launch_entry_layout(bool, const SoftmaxArguments<bfloat16>&, const AttentionScores<bfloat16>&, int,
                                  Device);

}  // namespace sgnn::ops::edge_softmax_cuda
