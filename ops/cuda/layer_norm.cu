// Layer normalisation on CUDA: a warp per row (rows are a node's features:
// tens to a few thousand values), the mean and then the squared deviations
// summed by shuffles — two passes over the row, the second from cache, so
// the variance has no E[x²] − E[x]² cancellation — then the row written.
// The backward sums Σ w·g and Σ w·g·x̂ over the row the same way.
#include "ops/cuda/warp_reduce.cuh"
#include "ops/normalization_backend.hpp"
#include "ops/normalization_math.hpp"

namespace sgnn::ops {

namespace {

template <typename T>
__global__ void layer_norm_forward_kernel(const T* __restrict__ x, const float* __restrict__ weight,
                                          const float* __restrict__ bias, float eps, int64_t rows, int64_t columns,
                                          T* __restrict__ y, float* __restrict__ mean, float* __restrict__ inverse_std_out) {
  const unsigned lane = threadIdx.x & 31u;
  const float inverse_columns = 1.0f / static_cast<float>(columns);
  for (int64_t r = warp_row_begin(); r < rows; r += warp_row_step()) {
    const T* row = x + r * columns;
    float total = 0.0f;
    for (int64_t c = lane; c < columns; c += 32) total += load_float(row[c]);
    const float row_mean = warp_sum(total) * inverse_columns;
    float squares = 0.0f;
    for (int64_t c = lane; c < columns; c += 32) {
      const float deviation = load_float(row[c]) - row_mean;
      squares += deviation * deviation;
    }
    const float scale = inverse_std(warp_sum(squares) * inverse_columns, eps);
    if (lane == 0) {
      mean[r] = row_mean;
      inverse_std_out[r] = scale;
    }
    T* out = y + r * columns;
    for (int64_t c = lane; c < columns; c += 32) {
      out[c] = store_as<T>(normalized(load_float(row[c]), row_mean, scale, weight_at(weight, c), bias_at(bias, c)));
    }
  }
}

template <typename T>
__global__ void layer_norm_backward_kernel(const T* __restrict__ grad_y, const T* __restrict__ x,
                                           const float* __restrict__ mean, const float* __restrict__ inverse_std_in,
                                           const float* __restrict__ weight, int64_t rows, int64_t columns,
                                           T* __restrict__ grad_x) {
  const unsigned lane = threadIdx.x & 31u;
  const float inverse_columns = 1.0f / static_cast<float>(columns);
  for (int64_t r = warp_row_begin(); r < rows; r += warp_row_step()) {
    const T* xr = x + r * columns;
    const T* gr = grad_y + r * columns;
    const float row_mean = mean[r];
    const float scale = inverse_std_in[r];
    float grad_total = 0.0f, product_total = 0.0f;
    for (int64_t c = lane; c < columns; c += 32) {
      const float scaled = weight_at(weight, c) * load_float(gr[c]);
      grad_total += scaled;
      product_total += scaled * ((load_float(xr[c]) - row_mean) * scale);
    }
    const float mean_grad = warp_sum(grad_total) * inverse_columns;
    const float mean_product = warp_sum(product_total) * inverse_columns;
    T* out = grad_x + r * columns;
    for (int64_t c = lane; c < columns; c += 32) {
      out[c] = store_as<T>(centered_gradient(scale, weight_at(weight, c) * load_float(gr[c]),
                                             (load_float(xr[c]) - row_mean) * scale, mean_grad, mean_product));
    }
  }
}

const float* optional(const Tensor& tensor) { return tensor.defined() ? tensor.data<float>() : nullptr; }

}  // namespace

void layer_norm_forward(Cuda, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, Tensor& y,
                        Tensor& mean, Tensor& inverse_std_out) {
  const int64_t columns = x.size(-1);
  const int64_t rows = x.numel() / columns;
  if (rows == 0) return;
  cuda::DeviceGuard guard(x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    layer_norm_forward_kernel<<<warp_row_blocks(rows, x.device()), kWarpRowThreads, 0, cuda::stream(x.device())>>>(
        x.data<T>(), optional(weight), optional(bias), eps, rows, columns, y.data<T>(), mean.data<float>(),
        inverse_std_out.data<float>());
  });
  SGNN_CUDA_CHECK_LAUNCH("layer_norm_forward_kernel");
}

void layer_norm_backward(Cuda, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std_in,
                         const Tensor& weight, Tensor& grad_x) {
  const int64_t columns = x.size(-1);
  const int64_t rows = x.numel() / columns;
  if (rows == 0) return;
  cuda::DeviceGuard guard(x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    layer_norm_backward_kernel<<<warp_row_blocks(rows, x.device()), kWarpRowThreads, 0, cuda::stream(x.device())>>>(
        grad_y.data<T>(), x.data<T>(), mean.data<float>(), inverse_std_in.data<float>(), optional(weight), rows,
        columns, grad_x.data<T>());
  });
  SGNN_CUDA_CHECK_LAUNCH("layer_norm_backward_kernel");
}

}  // namespace sgnn::ops
