// CUDA edge softmax: one subwarp per (row, head) in the plan's row order.
// Forward reads the row's scores once for the maximum and the sum together
// (online softmax: the running sum is rescaled when the maximum grows, and
// per-lane partials are merged with shuffles), then writes exp(s − max) / sum.
// Backward: one subwarp sum of out · grad_out, then the elementwise update.
// The subwarp width follows the graph's mean row length (the cached plan).
// bfloat16 scores: read as float, max, sum and division in float, the
// result rounded once when stored (ops/edge_softmax.hpp).
#include <cmath>
#include <cstdint>

#include "ops/cuda/sparse_device.cuh"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

template <typename T>
struct SoftmaxArguments {
  Offsets indptr;
  const int32_t* row_order;
  int64_t num_rows;
  int heads;
  const T* first;   // forward: scores; backward: out
  const T* second;  // backward: grad_out
  T* result;
};

// The entries [begin, end) and head of work item `item` (row-order position × heads + head).
struct RowHead {
  int64_t head, begin, end;
};
template <typename T>
__device__ __forceinline__ RowHead row_head(const SoftmaxArguments<T>& args, int64_t item) {
  const int64_t row = args.row_order[item / args.heads];
  return {item % args.heads, args.indptr[row], args.indptr[row + 1]};
}

// exp(from − to) · value, 0 for a partial that has seen nothing (from = −inf).
__device__ __forceinline__ float rescale(float value, float from, float to) {
  return from == -INFINITY ? 0.0f : value * expf(from - to);
}

template <int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) edge_softmax_forward_kernel(SoftmaxArguments<T> args) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t heads = args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < args.num_rows * heads;
       item += sparse_cuda::subwarp_count(kSub)) {
    const RowHead rh = row_head(args, item);
    const int64_t head = rh.head, begin = rh.begin, end = rh.end;
    float maximum = -INFINITY;
    float sum = 0.0f;
    for (int64_t e = begin + lane; e < end; e += kSub) {
      const float score = load_float_readonly(args.first + e * heads + head);
      if (score > maximum) {
        sum = rescale(sum, maximum, score) + 1.0f;
        maximum = score;
      } else {
        sum += expf(score - maximum);
      }
    }
#pragma unroll
    for (int offset = kSub / 2; offset > 0; offset /= 2) {
      const float other_maximum = __shfl_xor_sync(mask, maximum, offset, kSub);
      const float other_sum = __shfl_xor_sync(mask, sum, offset, kSub);
      const float merged = fmaxf(maximum, other_maximum);
      sum = rescale(sum, maximum, merged) + rescale(other_sum, other_maximum, merged);
      maximum = merged;
    }
    for (int64_t e = begin + lane; e < end; e += kSub) {
      const float score = load_float_readonly(args.first + e * heads + head);
      args.result[e * heads + head] = store_as<T>(expf(score - maximum) / sum);
    }
  }
}

template <int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) edge_softmax_backward_kernel(SoftmaxArguments<T> args) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t heads = args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < args.num_rows * heads;
       item += sparse_cuda::subwarp_count(kSub)) {
    const RowHead rh = row_head(args, item);
    const int64_t head = rh.head, begin = rh.begin, end = rh.end;
    float weighted = 0.0f;
    for (int64_t e = begin + lane; e < end; e += kSub) {
      const int64_t k = e * heads + head;
      weighted += load_float_readonly(args.first + k) * load_float_readonly(args.second + k);
    }
    weighted = sparse_cuda::subwarp_sum<kSub>(weighted, mask);
    for (int64_t e = begin + lane; e < end; e += kSub) {
      const int64_t k = e * heads + head;
      const float out = load_float_readonly(args.first + k);
      args.result[k] = store_as<T>(out * (load_float_readonly(args.second + k) - weighted));
    }
  }
}

template <int kSub, typename T>
void launch(bool backward, const SoftmaxArguments<T>& args, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.num_rows * args.heads, kSub, device);
  cudaStream_t stream = cuda::stream(device);
  if (backward) {
    edge_softmax_backward_kernel<kSub><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_backward_kernel");
  } else {
    edge_softmax_forward_kernel<kSub><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
    SGNN_CUDA_CHECK_LAUNCH("edge_softmax_forward_kernel");
  }
}

void run(bool backward, const Csr& csr, int64_t heads, const Tensor& first, const Tensor& second, Tensor& result) {
  if (result.numel() == 0) return;
  const Device device = first.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const int sub = sparse_cuda::next_power_of_two(static_cast<int64_t>(std::ceil(plan->mean_row_length)), 32);
  visit_floating(first.dtype(), [&](auto element) {
    using T = decltype(element);
    const SoftmaxArguments<T> args{offsets_of(csr.indptr),
                                   plan->row_order.data<int32_t>(),
                                   csr.num_rows,
                                   static_cast<int>(heads),
                                   first.data<T>(),
                                   second.defined() ? second.data<T>() : nullptr,
                                   result.data<T>()};
    if (sub <= 4) launch<4>(backward, args, device);
    else if (sub == 8) launch<8>(backward, args, device);
    else if (sub == 16) launch<16>(backward, args, device);
    else launch<32>(backward, args, device);
  });
}

}  // namespace

void edge_softmax_forward(Cuda, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out) {
  run(false, csr, heads, scores, Tensor(), out);
}

void edge_softmax_backward(Cuda, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores) {
  run(true, csr, heads, out, grad_out, grad_scores);
}

}  // namespace sgnn::ops
