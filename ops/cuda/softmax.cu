// Softmax over rows on CUDA: one warp per row (rows are the classes of a node
// or the features of a head: short), max and sum by warp shuffles. bfloat16
// rows are read as float, computed in float and rounded once when stored.
#include "ops/cuda/warp_reduce.cuh"
#include "ops/softmax_backend.hpp"

namespace sgnn::ops {

namespace {

template <typename T>
__global__ void softmax_forward_kernel(bool log, const T* __restrict__ x, int64_t rows, int64_t cols,
                                       T* __restrict__ y) {
  const unsigned lane = threadIdx.x & 31u;
  for (int64_t r = warp_row_begin(); r < rows; r += warp_row_step()) {
    const T* row = x + r * cols;
    T* out = y + r * cols;
    const float shift = warp_row_shift(row, cols, lane);
    const float total = warp_row_exp_sum(row, cols, shift, lane);
    if (log) {
      const float log_total = logf(total);
      for (int64_t c = lane; c < cols; c += 32) out[c] = store_as<T>(load_float(row[c]) - shift - log_total);
    } else {
      const float inverse = 1.0f / total;
      for (int64_t c = lane; c < cols; c += 32) out[c] = store_as<T>(expf(load_float(row[c]) - shift) * inverse);
    }
  }
}

template <typename T>
__global__ void softmax_backward_kernel(bool log, const T* __restrict__ y, const T* __restrict__ grad_y,
                                        int64_t rows, int64_t cols, T* __restrict__ grad_x) {
  const unsigned lane = threadIdx.x & 31u;
  for (int64_t r = warp_row_begin(); r < rows; r += warp_row_step()) {
    const T* yr = y + r * cols;
    const T* gr = grad_y + r * cols;
    T* dx = grad_x + r * cols;
    float dot = 0.0f;
    for (int64_t c = lane; c < cols; c += 32) dot += log ? load_float(gr[c]) : load_float(gr[c]) * load_float(yr[c]);
    dot = warp_sum(dot);
    for (int64_t c = lane; c < cols; c += 32) {
      const float g = load_float(gr[c]);
      const float value = load_float(yr[c]);
      dx[c] = store_as<T>(log ? g - expf(value) * dot : value * (g - dot));
    }
  }
}

}  // namespace

void softmax_forward(Cuda, bool log, const Tensor& x, int64_t cols, Tensor& y) {
  if (cols == 0 || x.numel() == 0) return;
  const int64_t rows = x.numel() / cols;
  cuda::DeviceGuard guard(x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    softmax_forward_kernel<<<warp_row_blocks(rows, x.device()), kWarpRowThreads, 0, cuda::stream(x.device())>>>(
        log, x.data<T>(), rows, cols, y.data<T>());
  });
  SGNN_CUDA_CHECK_LAUNCH("softmax_forward_kernel");
}

void softmax_backward(Cuda, bool log, const Tensor& y, const Tensor& grad_y, int64_t cols, Tensor& grad_x) {
  if (cols == 0 || y.numel() == 0) return;
  const int64_t rows = y.numel() / cols;
  cuda::DeviceGuard guard(y.device());
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    softmax_backward_kernel<<<warp_row_blocks(rows, y.device()), kWarpRowThreads, 0, cuda::stream(y.device())>>>(
        log, y.data<T>(), grad_y.data<T>(), rows, cols, grad_x.data<T>());
  });
  SGNN_CUDA_CHECK_LAUNCH("softmax_backward_kernel");
}

}  // namespace sgnn::ops
