// Axis sums on CUDA, deterministic (a fixed tree, no atomics).
//
// x is [outer, extent, inner]. When the work per output is long (a bias
// gradient sums 10⁵ rows into a few hundred outputs), the extent is cut into
// `splits` chunks: pass 1 writes one partial per chunk, pass 2 sums the
// partials with the same kernels.
#include <algorithm>

#include "core/cuda/launch.cuh"
#include "ops/cuda/warp_reduce.cuh"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr unsigned kRowThreads = 256;
constexpr unsigned kTileColumns = 32;  // inner > 1: a block covers 32 adjacent outputs
constexpr unsigned kTileRows = 8;      // ... and 8 rows of the extent at a time
constexpr int64_t kMinRowsPerSplit = 256;

// inner == 1. Block b sums row b / splits over chunk b % splits of length
// `chunk` and writes factor · sum to out[b].
__global__ void sum_rows_kernel(const float* __restrict__ x, int64_t rows, int64_t extent, int64_t splits,
                                int64_t chunk, float factor, float* __restrict__ out) {
  for (int64_t b = blockIdx.x; b < rows * splits; b += gridDim.x) {
    const int64_t row = b / splits;
    const int64_t begin = (b % splits) * chunk;
    const int64_t end = min(extent, begin + chunk);
    const float* data = x + row * extent;
    float total = 0.0f;
    for (int64_t k = begin + threadIdx.x; k < end; k += blockDim.x) total += data[k];
    total = block_sum(total);
    if (threadIdx.x == 0) out[b] = total * factor;
  }
}

// inner > 1. Block b covers tile (o, columns i0..i0+31) and chunk s of the
// extent; writes factor · sum to out[(s · outer + o) · inner + i].
__global__ void sum_columns_kernel(const float* __restrict__ x, int64_t outer, int64_t extent, int64_t inner,
                                   int64_t splits, int64_t chunk, float factor, float* __restrict__ out) {
  __shared__ float partial[kTileRows][kTileColumns + 1];
  const int64_t tiles_per_row = (inner + kTileColumns - 1) / kTileColumns;
  const int64_t blocks = outer * tiles_per_row * splits;
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int64_t s = b % splits;
    const int64_t tile = b / splits;
    const int64_t o = tile / tiles_per_row;
    const int64_t i = (tile % tiles_per_row) * kTileColumns + threadIdx.x;
    const int64_t begin = s * chunk;
    const int64_t end = min(extent, begin + chunk);
    float total = 0.0f;
    if (i < inner) {
      const float* column = x + o * extent * inner + i;
      for (int64_t k = begin + threadIdx.y; k < end; k += kTileRows) total += column[k * inner];
    }
    __syncthreads();  // the previous iteration's readers are done with `partial`
    partial[threadIdx.y][threadIdx.x] = total;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
      float sum = 0.0f;
      for (unsigned r = 0; r < kTileRows; ++r) sum += partial[r][threadIdx.x];
      out[(s * outer + o) * inner + i] = sum * factor;
    }
  }
}

__global__ void broadcast_kernel(const float* __restrict__ g, int64_t extent, int64_t inner, float factor,
                                 float* __restrict__ out, int64_t n) {
  for (int64_t j = grid_stride_begin(); j < n; j += grid_stride_step()) {
    const int64_t o = j / (extent * inner);
    out[j] = g[o * inner + j % inner] * factor;
  }
}

unsigned grid_for(int64_t blocks, Device device) {
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 32;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, cap));
}

// One pass: out gets outer·inner·splits values (the partials when splits > 1).
void launch_sum(const float* x, AxisLayout layout, int64_t splits, float factor, float* out, Device device) {
  const int64_t chunk = (layout.extent + splits - 1) / splits;
  const cudaStream_t stream = cuda::stream(device);
  if (layout.inner == 1) {
    sum_rows_kernel<<<grid_for(layout.outer * splits, device), kRowThreads, 0, stream>>>(
        x, layout.outer, layout.extent, splits, std::max<int64_t>(chunk, 1), factor, out);
    SGNN_CUDA_CHECK_LAUNCH("sum_rows_kernel");
  } else {
    const int64_t tiles = layout.outer * ((layout.inner + kTileColumns - 1) / kTileColumns);
    sum_columns_kernel<<<grid_for(tiles * splits, device), dim3(kTileColumns, kTileRows), 0, stream>>>(
        x, layout.outer, layout.extent, layout.inner, splits, std::max<int64_t>(chunk, 1), factor, out);
    SGNN_CUDA_CHECK_LAUNCH("sum_columns_kernel");
  }
}

}  // namespace

void sum_axis(Cuda, const Tensor& x, AxisLayout layout, float factor, Tensor& out) {
  if (layout.outer * layout.inner == 0) return;  // no outputs (an empty extent still writes 0 · factor)
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  const int64_t outputs_blocks =
      layout.inner == 1 ? layout.outer : layout.outer * ((layout.inner + kTileColumns - 1) / kTileColumns);
  const int64_t wanted_blocks = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 4;
  int64_t splits = 1;
  if (outputs_blocks < wanted_blocks) {
    splits = std::min((wanted_blocks + outputs_blocks - 1) / outputs_blocks, layout.extent / kMinRowsPerSplit);
    splits = std::max<int64_t>(splits, 1);
  }
  const float* input = x.numel() == 0 ? nullptr : x.data<float>();
  if (splits == 1) {
    launch_sum(input, layout, 1, factor, out.data<float>(), device);
    return;
  }
  // Partials laid out [outer, splits] (rows) or [splits, outer·inner] (columns),
  // then summed over the split axis.
  Tensor partials = Tensor::empty({layout.outer * layout.inner * splits}, DType::Float32, device);
  launch_sum(input, layout, splits, 1.0f, partials.data<float>(), device);
  const AxisLayout second = layout.inner == 1 ? AxisLayout{layout.outer, splits, 1}
                                              : AxisLayout{1, splits, layout.outer * layout.inner};
  launch_sum(partials.data<float>(), second, 1, factor, out.data<float>(), device);
}

void broadcast_axis(Cuda, const Tensor& g, AxisLayout layout, float factor, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(out.device());
  const LaunchShape shape = elementwise_launch_shape(n, out.device());
  broadcast_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(out.device())>>>(
      g.data<float>(), layout.extent, layout.inner, factor, out.data<float>(), n);
  SGNN_CUDA_CHECK_LAUNCH("broadcast_kernel");
}

}  // namespace sgnn::ops
