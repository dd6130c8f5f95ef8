// CUDA edge softmax and the fused GAT attention softmax (ops/edge_softmax.hpp,
// ops/attention_softmax.hpp). A row's scores come from a Source: stored
// scores, or leaky_relu(x[row, h] + y[col(e), h]) computed on the fly, so the
// fused op never stores the scores.
//
// Two layouts of the work, both one subwarp per row (or row and head) in the
// plan's row order (longest rows first):
//   - interleaved (heads a power of two ≤ 32): the subwarp walks the row's
//     [entries × heads] block as one contiguous range, lane l always on head
//     l mod heads, so every load and store is coalesced; the per-head maximum
//     and sum are merged over the lanes of the same head;
//   - per head (any other head count): one subwarp per (row, head), a stride
//     of `heads` elements between consecutive entries.
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

#include "ops/activation_math.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

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
};

// out (forward) or grad_out and the saved out (backward), and where the result goes.
template <typename T>
struct SoftmaxArguments {
  Offsets indptr;
  const int32_t* row_order;
  int64_t num_rows;
  int heads;
  int heads_shift;    // log2(heads), interleaved layout only
  const T* out;       // backward: the forward's output
  const T* grad_out;  // backward
  T* result;          // forward: out; backward: the gradient of the scores
};

// exp(from − to) · value, 0 for a partial that has seen nothing (from = −inf).
__device__ __forceinline__ float rescale(float value, float from, float to) {
  return from == -INFINITY ? 0.0f : value * expf(from - to);
}

// Adds in the running (maximum, sum) of the lanes `offset` apart, for
// offsets kFrom, kFrom/2, … down to kTo (lanes ≥ kTo apart share a head).
template <int kSub>
__device__ __forceinline__ void merge_softmax(float& maximum, float& sum, unsigned mask, int down_to) {
#pragma unroll
  for (int offset = kSub / 2; offset > 0; offset /= 2) {
    if (offset < down_to) break;
    const float other_maximum = __shfl_xor_sync(mask, maximum, offset, kSub);
    const float other_sum = __shfl_xor_sync(mask, sum, offset, kSub);
    const float merged = fmaxf(maximum, other_maximum);
    sum = rescale(sum, maximum, merged) + rescale(other_sum, other_maximum, merged);
    maximum = merged;
  }
}

template <int kSub>
__device__ __forceinline__ float merge_sum(float value, unsigned mask, int down_to) {
#pragma unroll
  for (int offset = kSub / 2; offset > 0; offset /= 2) {
    if (offset < down_to) break;
    value += __shfl_xor_sync(mask, value, offset, kSub);
  }
  return value;
}

// One work item's elements and the head of this lane's elements.
// Interleaved: the row's whole [entries × heads] block, element k of entry
// k >> heads_shift and head lane mod heads. Per head: item = position ×
// heads + head, entries begin + lane, begin + lane + kSub, … of that head.
struct WorkRange {
  int64_t row, head, begin, end;
};
template <bool kInterleaved, typename T>
__device__ __forceinline__ WorkRange work_range(const SoftmaxArguments<T>& args, int64_t item, int lane) {
  const int64_t heads = args.heads;
  if constexpr (kInterleaved) {
    const int64_t row = args.row_order[item];
    return {row, lane & (heads - 1), args.indptr[row] * heads, args.indptr[row + 1] * heads};
  } else {
    const int64_t row = args.row_order[item / heads];
    return {row, item % heads, args.indptr[row], args.indptr[row + 1]};
  }
}

// Calls visit(entry, k) for this lane's elements of the work item, k the
// element's index in the [nnz · heads] tensors. No division per element.
template <bool kInterleaved, int kSub, typename T, typename Visit>
__device__ __forceinline__ void for_each_element(const SoftmaxArguments<T>& args, const WorkRange& w, int lane,
                                                 Visit&& visit) {
  if constexpr (kInterleaved) {
    for (int64_t k = w.begin + lane; k < w.end; k += kSub) visit(k >> args.heads_shift, k);
  } else {
    for (int64_t e = w.begin + lane; e < w.end; e += kSub) visit(e, e * args.heads + w.head);
  }
}

template <bool kInterleaved, int kSub, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    edge_softmax_forward_kernel(SoftmaxArguments<T> args, Source source) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  // Interleaved, lanes a multiple of `heads` apart hold the same head.
  const int merge_down_to = kInterleaved ? args.heads : 1;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const WorkRange w = work_range<kInterleaved>(args, item, lane);
    float maximum = -INFINITY;
    float sum = 0.0f;
    for_each_element<kInterleaved, kSub>(args, w, lane, [&](int64_t entry, int64_t k) {
      const float score = source.score(w.row, entry, w.head, k);
      if (score > maximum) {
        sum = rescale(sum, maximum, score) + 1.0f;
        maximum = score;
      } else {
        sum += expf(score - maximum);
      }
    });
    merge_softmax<kSub>(maximum, sum, mask, merge_down_to);
    for_each_element<kInterleaved, kSub>(args, w, lane, [&](int64_t entry, int64_t k) {
      args.result[k] = store_as<T>(expf(source.score(w.row, entry, w.head, k) - maximum) / sum);
    });
  }
}

template <bool kInterleaved, int kSub, typename T, typename Source>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    edge_softmax_backward_kernel(SoftmaxArguments<T> args, Source source) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  const int merge_down_to = kInterleaved ? args.heads : 1;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const WorkRange w = work_range<kInterleaved>(args, item, lane);
    float weighted = 0.0f;
    for_each_element<kInterleaved, kSub>(args, w, lane, [&](int64_t, int64_t k) {
      weighted += load_float_readonly(args.out + k) * load_float_readonly(args.grad_out + k);
    });
    weighted = merge_sum<kSub>(weighted, mask, merge_down_to);
    for_each_element<kInterleaved, kSub>(args, w, lane, [&](int64_t entry, int64_t k) {
      const float grad_score = load_float_readonly(args.out + k) * (load_float_readonly(args.grad_out + k) - weighted);
      args.result[k] = store_as<T>(source.input_gradient(w.row, entry, w.head, k, grad_score));
    });
  }
}

template <bool kInterleaved, int kSub, typename T, typename Source>
void launch(bool backward, const SoftmaxArguments<T>& args, const Source& source, Device device) {
  const int64_t items = kInterleaved ? args.num_rows : args.num_rows * args.heads;
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kSub, device);
  cudaStream_t stream = cuda::stream(device);
  if (backward) {
    edge_softmax_backward_kernel<kInterleaved, kSub><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_backward_kernel");
  } else {
    edge_softmax_forward_kernel<kInterleaved, kSub><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args, source);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_forward_kernel");
  }
}

bool is_power_of_two(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

// Picks the layout and the subwarp width: interleaved for power-of-two head
// counts up to 32, lanes for the mean row's elements (entries × heads when
// interleaved), at least `heads` lanes and at least 4.
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
  const bool interleaved = is_power_of_two(heads) && heads <= 32;
  const double elements = plan->mean_row_length * static_cast<double>(interleaved ? heads : 1);
  int sub = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(elements)), 32);
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
    SoftmaxArguments<float> args{};
    args.result = out.data<float>();
    const AttentionScores<T> source{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    run(false, csr, heads, args, source, x.device());
  });
}

void attention_softmax_backward(Cuda, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                                const Tensor& y, const Tensor& out, const Tensor& grad_out, Tensor& grad_sums) {
  if (grad_sums.numel() == 0) return;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    SoftmaxArguments<float> args{};
    args.out = out.data<float>();
    args.grad_out = grad_out.data<float>();
    args.result = grad_sums.data<float>();
    const AttentionScores<T> source{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    run(true, csr, heads, args, source, x.device());
  });
}

}  // namespace sgnn::ops
