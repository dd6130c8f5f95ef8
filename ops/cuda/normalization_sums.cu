// The column sums of a normalisation's backward on CUDA: Σ_r g and
// Σ_r g · x̂ for every column of [rows, columns] (the bias and weight
// gradients; batch norm's input gradient needs them too). The tiling of
// ops/cuda/reduce.cu's column sums — 32 adjacent columns by 8 rows a block,
// the rows cut into splits when there are few columns — with two
// accumulators; the split partials are summed by sum_axis (fixed order).
#include <algorithm>

#include "core/cuda/launch.cuh"
#include "ops/normalization_backend.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr unsigned kTileColumns = 32;
constexpr unsigned kTileRows = 8;
constexpr int64_t kMinRowsPerSplit = 256;

// Block b covers column tile b / splits and row chunk b % splits; writes
// out[(split · 2 + 0) · columns + c] = Σ g and out[(split · 2 + 1) · columns + c] = Σ g·x̂.
template <typename T>
__global__ void sums_kernel(const T* __restrict__ grad_y, const T* __restrict__ x, const float* __restrict__ mean,
                            const float* __restrict__ inverse_std, bool per_row_statistics, int64_t rows,
                            int64_t columns, int64_t splits, int64_t chunk, float* __restrict__ out) {
  __shared__ float partial[2][kTileRows][kTileColumns + 1];
  const int64_t tiles = (columns + kTileColumns - 1) / kTileColumns;
  for (int64_t b = blockIdx.x; b < tiles * splits; b += gridDim.x) {
    const int64_t split = b % splits;
    const int64_t column = (b / splits) * kTileColumns + threadIdx.x;
    const int64_t end = min(rows, (split + 1) * chunk);
    float grad_total = 0.0f, product_total = 0.0f;
    if (column < columns) {
      for (int64_t r = split * chunk + threadIdx.y; r < end; r += kTileRows) {
        const int64_t index = r * columns + column;
        const int64_t statistic = per_row_statistics ? r : column;
        const float g = load_float(grad_y[index]);
        grad_total += g;
        product_total += g * ((load_float(x[index]) - mean[statistic]) * inverse_std[statistic]);
      }
    }
    __syncthreads();  // the previous iteration's readers are done with `partial`
    partial[0][threadIdx.y][threadIdx.x] = grad_total;
    partial[1][threadIdx.y][threadIdx.x] = product_total;
    __syncthreads();
    if (threadIdx.y < 2 && column < columns) {
      float sum = 0.0f;
      for (unsigned r = 0; r < kTileRows; ++r) sum += partial[threadIdx.y][r][threadIdx.x];
      out[(split * 2 + threadIdx.y) * columns + column] = sum;
    }
  }
}

}  // namespace

void normalization_sums(Cuda, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std,
                        bool per_row_statistics, Tensor& sums) {
  const int64_t columns = x.size(-1);
  const int64_t rows = columns == 0 ? 0 : x.numel() / columns;
  if (columns == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  if (rows == 0) {
    SGNN_CUDA_CHECK(cudaMemsetAsync(sums.raw_data(), 0, sums.nbytes(), stream));
    return;
  }
  const int64_t tiles = (columns + kTileColumns - 1) / kTileColumns;
  const int64_t multiprocessors = cuda::properties(device).multiProcessorCount;
  int64_t splits = 1;
  if (tiles < multiprocessors * 4) {
    splits = std::clamp<int64_t>((multiprocessors * 4 + tiles - 1) / tiles, 1, std::max<int64_t>(1, rows / kMinRowsPerSplit));
  }
  const int64_t chunk = (rows + splits - 1) / splits;
  Tensor partials = splits == 1 ? sums : Tensor::empty({splits * 2 * columns}, DType::Float32, device);
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(tiles * splits, multiprocessors * 32));
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    sums_kernel<<<blocks, dim3(kTileColumns, kTileRows), 0, stream>>>(
        grad_y.data<T>(), x.data<T>(), mean.data<float>(), inverse_std.data<float>(), per_row_statistics, rows,
        columns, splits, chunk, partials.data<float>());
  });
  SGNN_CUDA_CHECK_LAUNCH("normalization sums_kernel");
  if (splits > 1) sum_axis(Cuda{}, partials, AxisLayout{1, splits, 2 * columns}, 1.0f, sums);
}

}  // namespace sgnn::ops
