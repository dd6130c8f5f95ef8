// Fused bias + activation on CUDA. Forward: one elementwise pass. Backward:
// one pass that writes grad_x and, per (32-column tile, chunk of rows) block,
// the partial column sums of grad_x (the bias gradient); a small second
// reduction (sum_axis) adds up the chunks in a fixed order.
#include <algorithm>

#include "core/cuda/launch.cuh"
#include "ops/bias_activation_backend.hpp"
#include "ops/bias_activation_math.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr unsigned kTileColumns = 32;
constexpr unsigned kTileRows = 8;
constexpr int64_t kMinRowsPerChunk = 64;

template <typename T, typename B>
__global__ void bias_activation_forward_kernel(FusedActivation activation, float parameter,
                                               const T* __restrict__ x, const B* __restrict__ bias,
                                               T* __restrict__ y, int64_t total, int64_t n) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const float z = bias != nullptr ? load_float(x[i]) + load_float(bias[i % n]) : load_float(x[i]);
    y[i] = store_as<T>(fused_value(activation, parameter, z));
  }
}

template <typename T>
__global__ void activation_gradient_kernel(FusedActivation activation, float parameter, const T* __restrict__ y,
                                           const T* __restrict__ grad_y, T* __restrict__ grad_x, int64_t total) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    grad_x[i] = store_as<T>(fused_gradient(activation, parameter, load_float(y[i]), load_float(grad_y[i])));
  }
}

// Block b: column tile b / chunks, row chunk b % chunks. Threads (32, 8):
// x walks the tile's columns (coalesced), y the chunk's rows with stride 8.
// partial[chunk · n + column] = Σ of grad_x over the chunk's rows (the float
// gradients, before a bfloat16 grad_x rounds them).
template <typename T>
__global__ void bias_activation_backward_kernel(FusedActivation activation, float parameter,
                                                const T* __restrict__ y, const T* __restrict__ grad_y,
                                                T* __restrict__ grad_x, float* __restrict__ partial,
                                                int64_t rows, int64_t n, int64_t chunks, int64_t chunk_rows) {
  __shared__ float column_sums[kTileRows][kTileColumns + 1];
  const int64_t tiles = (n + kTileColumns - 1) / kTileColumns;
  for (int64_t b = blockIdx.x; b < tiles * chunks; b += gridDim.x) {
    const int64_t chunk = b % chunks;
    const int64_t column = (b / chunks) * kTileColumns + threadIdx.x;
    const int64_t end = min(rows, (chunk + 1) * chunk_rows);
    float total = 0.0f;
    if (column < n) {
      for (int64_t r = chunk * chunk_rows + threadIdx.y; r < end; r += kTileRows) {
        const int64_t i = r * n + column;
        const float g = fused_gradient(activation, parameter, load_float(y[i]), load_float(grad_y[i]));
        grad_x[i] = store_as<T>(g);
        total += g;
      }
    }
    __syncthreads();  // the previous iteration's readers are done with column_sums
    column_sums[threadIdx.y][threadIdx.x] = total;
    __syncthreads();
    if (threadIdx.y == 0 && column < n) {
      float sum = 0.0f;
      for (unsigned k = 0; k < kTileRows; ++k) sum += column_sums[k][threadIdx.x];
      partial[chunk * n + column] = sum;
    }
  }
}

}  // namespace

void bias_activation_forward(Cuda, FusedActivation activation, float parameter, const Tensor& x, const Tensor& bias,
                             Tensor& y) {
  const int64_t total = x.numel();
  if (total == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(total, x.device());
  visit_floating(x.dtype(), [&](auto x_element) {
    visit_floating(bias.defined() ? bias.dtype() : DType::Float32, [&](auto bias_element) {
      using T = decltype(x_element);
      using B = decltype(bias_element);
      bias_activation_forward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
          activation, parameter, x.data<T>(), bias.defined() ? bias.data<B>() : nullptr, y.data<T>(), total,
          x.size(-1));
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("bias_activation_forward_kernel");
}

void bias_activation_backward(Cuda, FusedActivation activation, float parameter, const Tensor& y,
                              const Tensor& grad_y, Tensor& grad_x, Tensor& grad_bias) {
  const int64_t total = y.numel();
  const int64_t n = y.size(-1);
  const Device device = y.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  if (!grad_bias.defined()) {
    if (total == 0) return;
    const LaunchShape shape = elementwise_launch_shape(total, device);
    visit_floating(y.dtype(), [&](auto element) {
      using T = decltype(element);
      activation_gradient_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
          activation, parameter, y.data<T>(), grad_y.data<T>(), grad_x.data<T>(), total);
    });
    SGNN_CUDA_CHECK_LAUNCH("activation_gradient_kernel");
    return;
  }
  if (n == 0) return;
  const int64_t rows = total / n;
  if (rows == 0) {  // no rows: the bias gradient is an empty sum
    SGNN_CUDA_CHECK(cudaMemsetAsync(grad_bias.raw_data(), 0, grad_bias.nbytes(), stream));
    return;
  }
  // Enough row chunks to give every multiprocessor a few blocks, each chunk
  // long enough to amortise its partial.
  const int64_t tiles = (n + kTileColumns - 1) / kTileColumns;
  const int64_t wanted_blocks = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 4;
  const int64_t chunks =
      std::clamp<int64_t>((wanted_blocks + tiles - 1) / tiles, 1, std::max<int64_t>(rows / kMinRowsPerChunk, 1));
  const int64_t chunk_rows = (rows + chunks - 1) / chunks;
  Tensor partial = Tensor::empty({chunks, n}, DType::Float32, device);
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 32;
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    bias_activation_backward_kernel<<<static_cast<unsigned>(std::min(tiles * chunks, cap)),
                                      dim3(kTileColumns, kTileRows), 0, stream>>>(
        activation, parameter, y.data<T>(), grad_y.data<T>(), grad_x.data<T>(), partial.data<float>(), rows, n,
        chunks, chunk_rows);
  });
  SGNN_CUDA_CHECK_LAUNCH("bias_activation_backward_kernel");
  sum_axis(Cuda{}, partial, AxisLayout{1, chunks, n}, 1.0f, grad_bias);
}

}  // namespace sgnn::ops
