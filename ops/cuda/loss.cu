// nll / cross-entropy on CUDA. Nothing here reads device memory from the
// host: label and index faults become NaN losses (see ops/loss.hpp), and the
// upstream gradient is read by the kernel.
#include "ops/cuda/warp_reduce.cuh"
#include "ops/loss_backend.hpp"
#include "ops/loss_math.hpp"

namespace sgnn::ops {

namespace {

// log Σ_c exp(row[c]) over a warp (every lane gets it), shifted by the row maximum.
template <typename T>
__device__ float warp_log_sum_exp(const T* row, int64_t cols, unsigned lane) {
  const float shift = warp_row_shift(row, cols, lane);
  return shift + logf(warp_row_exp_sum(row, cols, shift, lane));
}

// One warp per selected entry e.
template <typename T>
__global__ void loss_per_row_kernel(LossKind kind, const T* __restrict__ x, const int32_t* __restrict__ labels,
                                    const int32_t* __restrict__ index, int64_t rows, int64_t classes,
                                    int64_t selected, float* __restrict__ per_row) {
  const unsigned lane = threadIdx.x & 31u;
  for (int64_t e = warp_row_begin(); e < selected; e += warp_row_step()) {
    const int64_t r = selected_row(e, index, labels, rows, classes);
    if (r < 0) {
      if (lane == 0) per_row[e] = NAN;
      continue;
    }
    const T* row = x + r * classes;
    const float target = load_float(row[labels[r]]);
    const float lse = kind == LossKind::CrossEntropy ? warp_log_sum_exp(row, classes, lane) : 0.0f;
    if (lane == 0) per_row[e] = kind == LossKind::CrossEntropy ? lse - target : -target;
  }
}

// multiplicity[r] += 1 for every valid selected entry (exact float counts:
// the result does not depend on the order of the atomics).
__global__ void multiplicity_kernel(const int32_t* __restrict__ labels, const int32_t* __restrict__ index,
                                    int64_t rows, int64_t classes, int64_t selected, float* multiplicity) {
  for (int64_t e = grid_stride_begin(); e < selected; e += grid_stride_step()) {
    const int64_t r = selected_row(e, index, labels, rows, classes);
    if (r >= 0) atomicAdd(multiplicity + r, 1.0f);
  }
}

// One warp per row of the gradient, computed in float and rounded once to T.
template <typename T>
__global__ void loss_backward_kernel(LossKind kind, const T* __restrict__ x, const int32_t* __restrict__ labels,
                                     const float* __restrict__ multiplicity, const float* __restrict__ grad_loss,
                                     float inverse_count, int64_t rows, int64_t classes, T* __restrict__ grad) {
  const unsigned lane = threadIdx.x & 31u;
  const float upstream = *grad_loss * inverse_count;
  for (int64_t r = warp_row_begin(); r < rows; r += warp_row_step()) {
    T* out = grad + r * classes;
    const float count = multiplicity[r];
    if (count == 0.0f) {
      for (int64_t c = lane; c < classes; c += 32) out[c] = store_as<T>(0.0f);
      continue;
    }
    const float weight = count * upstream;
    const T* row = x + r * classes;
    const int64_t label = labels[r];  // valid: multiplicity > 0 only for rows with a label in range
    const float lse = kind == LossKind::CrossEntropy ? warp_log_sum_exp(row, classes, lane) : 0.0f;
    for (int64_t c = lane; c < classes; c += 32) {
      const float probability_part = kind == LossKind::CrossEntropy ? weight * expf(load_float(row[c]) - lse) : 0.0f;
      out[c] = store_as<T>(c == label ? probability_part - weight : probability_part);
    }
  }
}

const int32_t* index_data(const Tensor& index) { return index.defined() ? index.data<int32_t>() : nullptr; }

}  // namespace

void loss_per_row(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                  Tensor& per_row) {
  const int64_t selected = per_row.numel();
  if (selected == 0) return;
  const Device device = input.device();
  cuda::DeviceGuard guard(device);
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    loss_per_row_kernel<<<warp_row_blocks(selected, device), kWarpRowThreads, 0, cuda::stream(device)>>>(
        kind, input.data<T>(), labels.data<int32_t>(), index_data(index), input.size(0), input.size(1), selected,
        per_row.data<float>());
  });
  SGNN_CUDA_CHECK_LAUNCH("loss_per_row_kernel");
}

void loss_backward(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                   const Tensor& grad_loss, float inverse_count, Tensor& grad_input) {
  const int64_t rows = input.size(0);
  const int64_t classes = input.size(1);
  if (rows == 0 || classes == 0) return;
  const int64_t selected = index.defined() ? index.numel() : rows;
  const Device device = input.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  Tensor multiplicity = Tensor::zeros({rows}, DType::Float32, device);
  if (selected > 0) {
    const LaunchShape shape = elementwise_launch_shape(selected, device);
    multiplicity_kernel<<<shape.blocks, shape.threads, 0, stream>>>(labels.data<int32_t>(), index_data(index), rows,
                                                                    classes, selected, multiplicity.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("multiplicity_kernel");
  }
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    loss_backward_kernel<<<warp_row_blocks(rows, device), kWarpRowThreads, 0, stream>>>(
        kind, input.data<T>(), labels.data<int32_t>(), multiplicity.data<float>(), grad_loss.data<float>(),
        inverse_count, rows, classes, grad_input.data<T>());
  });
  SGNN_CUDA_CHECK_LAUNCH("loss_backward_kernel");
}

}  // namespace sgnn::ops
