// Batch normalisation on CUDA: per-column statistics of x [rows, columns]
// and the elementwise forward and backward.
//
// Statistics: a block covers 32 adjacent columns (one per lane, so a warp
// reads 32 consecutive elements of a row) and 8 rows at a time; the rows are
// cut into `splits` chunks when there are few columns, so that a tall batch
// (10⁵ rows, 64 channels) still fills the device. Each thread keeps Welford's
// running (count, mean, M2) over its rows, the 8 row-threads and then the
// splits are merged by Chan's formula in a fixed order: deterministic, and
// no cancellation of E[x²] − E[x]² when the mean is large against the spread.
// The values are shifted by the column's first one, so that Welford's own
// error (its mean rounds at the mean's magnitude) scales with the spread.
#include <algorithm>
#include <limits>

#include "core/cuda/launch.cuh"
#include "ops/normalization_backend.hpp"
#include "ops/normalization_math.hpp"

namespace sgnn::ops {

namespace {

constexpr unsigned kTileColumns = 32;
constexpr unsigned kTileRows = 8;
constexpr int64_t kMinRowsPerSplit = 256;

struct Moments {
  int64_t count;
  float mean;
  float m2;  // Σ (x − mean)²
};

__device__ __forceinline__ void add_value(Moments& m, float x) {
  ++m.count;
  const float delta = x - m.mean;
  m.mean += __fdividef(delta, static_cast<float>(m.count));
  m.m2 += delta * (x - m.mean);
}

// Chan et al.: the moments of the union of two disjoint sets.
__device__ __forceinline__ void merge(Moments& a, const Moments& b) {
  if (b.count == 0) return;
  if (a.count == 0) {
    a = b;
    return;
  }
  const int64_t count = a.count + b.count;
  const float delta = b.mean - a.mean;
  const float share = static_cast<float>(b.count) / static_cast<float>(count);
  a.mean += delta * share;
  a.m2 += b.m2 + delta * delta * static_cast<float>(a.count) * share;
  a.count = count;
}

// Block b covers column tile b / splits and chunk b % splits of the rows;
// writes that chunk's moments to partials[split · columns + column].
template <typename T>
__global__ void column_moments_kernel(const T* __restrict__ x, int64_t rows, int64_t columns, int64_t splits,
                                      int64_t chunk, Moments* __restrict__ partials) {
  __shared__ Moments tile[kTileRows][kTileColumns];
  const int64_t tiles = (columns + kTileColumns - 1) / kTileColumns;
  for (int64_t b = blockIdx.x; b < tiles * splits; b += gridDim.x) {
    const int64_t split = b % splits;
    const int64_t column = (b / splits) * kTileColumns + threadIdx.x;
    const int64_t end = min(rows, (split + 1) * chunk);
    Moments local{0, 0.0f, 0.0f};
    if (column < columns) {
      const float shift = load_float(x[column]);
      for (int64_t r = split * chunk + threadIdx.y; r < end; r += kTileRows) {
        add_value(local, load_float(x[r * columns + column]) - shift);
      }
    }
    __syncthreads();  // the previous iteration's readers are done with `tile`
    tile[threadIdx.y][threadIdx.x] = local;
    __syncthreads();
    if (threadIdx.y == 0 && column < columns) {
      for (unsigned r = 1; r < kTileRows; ++r) merge(local, tile[r][threadIdx.x]);
      partials[split * columns + column] = local;
    }
  }
}

// A thread per column: merges the splits in order, undoes the shift, writes
// the statistics and moves the running ones. Thread 0 counts the batch.
template <typename T>
__global__ void finish_statistics_kernel(const T* __restrict__ x, const Moments* __restrict__ partials, int64_t splits,
                                         int64_t columns, float eps, float momentum, float* __restrict__ mean,
                                         float* __restrict__ inverse_std_out, float* running_mean, float* running_var,
                                         int64_t* batches) {
  for (int64_t c = grid_stride_begin(); c < columns; c += grid_stride_step()) {
    Moments total = partials[c];
    for (int64_t s = 1; s < splits; ++s) merge(total, partials[s * columns + c]);
    const float batch_mean = load_float(x[c]) + total.mean;
    mean[c] = batch_mean;
    inverse_std_out[c] = inverse_std(total.m2 / static_cast<float>(total.count), eps);
    if (running_mean != nullptr) {
      running_mean[c] = running_update(running_mean[c], batch_mean, momentum);
      running_var[c] = running_update(running_var[c], total.m2 / static_cast<float>(total.count - 1), momentum);
    }
  }
  if (batches != nullptr && grid_stride_begin() == 0) ++*batches;
}

__global__ void running_statistics_kernel(const float* __restrict__ running_mean, const float* __restrict__ running_var,
                                          int64_t columns, float eps, float* __restrict__ mean,
                                          float* __restrict__ inverse_std_out) {
  for (int64_t c = grid_stride_begin(); c < columns; c += grid_stride_step()) {
    mean[c] = running_mean[c];
    inverse_std_out[c] = inverse_std(running_var[c], eps);
  }
}

// Column of element i: 32-bit arithmetic below 2^31 elements (64-bit modulo costs several times more).
__device__ __forceinline__ int64_t column_of(int64_t i, int64_t columns, bool narrow) {
  return narrow ? static_cast<int64_t>(static_cast<uint32_t>(i) % static_cast<uint32_t>(columns)) : i % columns;
}

template <typename T>
__global__ void forward_kernel(const T* __restrict__ x, const float* __restrict__ mean,
                               const float* __restrict__ inverse_std_in, const float* __restrict__ weight,
                               const float* __restrict__ bias, T* __restrict__ y, int64_t n, int64_t columns,
                               bool narrow) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    const int64_t c = column_of(i, columns, narrow);
    y[i] = store_as<T>(normalized(load_float(x[i]), mean[c], inverse_std_in[c], weight_at(weight, c), bias_at(bias, c)));
  }
}

// sums == nullptr: evaluation (the statistics are constants).
template <typename T>
__global__ void backward_kernel(const T* __restrict__ grad_y, const T* __restrict__ x, const float* __restrict__ mean,
                                const float* __restrict__ inverse_std_in, const float* __restrict__ weight,
                                const float* __restrict__ sums, float inverse_rows, T* __restrict__ grad_x, int64_t n,
                                int64_t columns, bool narrow) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    const int64_t c = column_of(i, columns, narrow);
    const float scale = inverse_std_in[c];
    const float mean_grad = sums != nullptr ? sums[c] * inverse_rows : 0.0f;
    const float mean_product = sums != nullptr ? sums[columns + c] * inverse_rows : 0.0f;
    grad_x[i] = store_as<T>(centered_gradient(weight_at(weight, c) * scale, load_float(grad_y[i]),
                                              (load_float(x[i]) - mean[c]) * scale, mean_grad, mean_product));
  }
}

const float* optional(const Tensor& tensor) { return tensor.defined() ? tensor.data<float>() : nullptr; }
float* optional_mutable(const Tensor& tensor) { return tensor.defined() ? tensor.data<float>() : nullptr; }

bool narrow(int64_t n) { return n <= std::numeric_limits<int32_t>::max(); }

}  // namespace

void batch_norm_statistics(Cuda, const Tensor& x, bool training, float momentum, float eps, const Tensor& running_mean,
                           const Tensor& running_var, const Tensor& batches, Tensor& mean, Tensor& inverse_std_out) {
  const int64_t rows = x.size(0);
  const int64_t columns = x.size(1);
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  if (!training) {
    if (columns == 0) return;
    const LaunchShape shape = elementwise_launch_shape(columns, device);
    running_statistics_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        running_mean.data<float>(), running_var.data<float>(), columns, eps, mean.data<float>(),
        inverse_std_out.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("running_statistics_kernel");
    return;
  }
  const int64_t tiles = (columns + kTileColumns - 1) / kTileColumns;
  const int64_t multiprocessors = cuda::properties(device).multiProcessorCount;
  int64_t splits = 1;
  if (tiles > 0 && tiles < multiprocessors * 4) {
    splits = std::clamp<int64_t>((multiprocessors * 4 + tiles - 1) / tiles, 1, std::max<int64_t>(1, rows / kMinRowsPerSplit));
  }
  const int64_t chunk = (rows + splits - 1) / splits;
  static_assert(sizeof(Moments) % sizeof(float) == 0);
  constexpr auto kFloatsPerMoments = static_cast<int64_t>(sizeof(Moments) / sizeof(float));
  Tensor partials = Tensor::empty({splits * columns * kFloatsPerMoments}, DType::Float32, device);
  auto* moments = static_cast<Moments*>(partials.raw_data());
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>(tiles * splits, 1, multiprocessors * 32));
  const LaunchShape shape = elementwise_launch_shape(std::max<int64_t>(columns, 1), device);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* data = x.numel() == 0 ? nullptr : x.data<T>();
    if (columns > 0) {
      column_moments_kernel<<<blocks, dim3(kTileColumns, kTileRows), 0, stream>>>(data, rows, columns, splits, chunk,
                                                                                   moments);
      SGNN_CUDA_CHECK_LAUNCH("column_moments_kernel");
    }
    finish_statistics_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        data, moments, splits, columns, eps, momentum, mean.data<float>(), inverse_std_out.data<float>(),
        optional_mutable(running_mean), optional_mutable(running_var),
        batches.defined() ? batches.data<int64_t>() : nullptr);
    SGNN_CUDA_CHECK_LAUNCH("finish_statistics_kernel");
  });
}

void batch_norm_forward(Cuda, const Tensor& x, const Tensor& mean, const Tensor& inverse_std_in, const Tensor& weight,
                        const Tensor& bias, Tensor& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    forward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
        x.data<T>(), mean.data<float>(), inverse_std_in.data<float>(), optional(weight), optional(bias), y.data<T>(),
        n, x.size(1), narrow(n));
  });
  SGNN_CUDA_CHECK_LAUNCH("batch_norm forward_kernel");
}

void batch_norm_backward(Cuda, bool training, const Tensor& grad_y, const Tensor& x, const Tensor& mean,
                         const Tensor& inverse_std_in, const Tensor& weight, const Tensor& sums, Tensor& grad_x) {
  const int64_t n = x.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(n, x.device());
  const float inverse_rows = 1.0f / static_cast<float>(x.size(0));
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    backward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
        grad_y.data<T>(), x.data<T>(), mean.data<float>(), inverse_std_in.data<float>(), optional(weight),
        training ? sums.data<float>() : nullptr, inverse_rows, grad_x.data<T>(), n, x.size(1), narrow(n));
  });
  SGNN_CUDA_CHECK_LAUNCH("batch_norm backward_kernel");
}

}  // namespace sgnn::ops
