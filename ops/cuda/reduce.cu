// Axis sums on CUDA, deterministic (a fixed tree, no atomics).
//
// x is [outer, extent, inner]. When the work per output is long (a bias
// gradient sums 10⁵ rows into a few hundred outputs), the extent is cut into
// `splits` chunks: pass 1 writes one partial per chunk, pass 2 sums the
// partials with the same kernels. Inputs and outputs are float or bfloat16
// (read as float, summed in float, the result rounded once); the partials
// are float.
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
constexpr int64_t kShortExtent = 64;
constexpr int64_t kMinShortOutputs = 256;

// inner == 1. Block b sums row b / splits over chunk b % splits of length
// `chunk` and writes factor · sum to out[b].
template <typename In, typename Out>
__global__ void sum_rows_kernel(const In* __restrict__ x, int64_t rows, int64_t extent, int64_t splits,
                                int64_t chunk, float factor, Out* __restrict__ out) {
  for (int64_t b = blockIdx.x; b < rows * splits; b += gridDim.x) {
    const int64_t row = b / splits;
    const int64_t begin = (b % splits) * chunk;
    const int64_t end = min(extent, begin + chunk);
    const In* data = x + row * extent;
    float total = 0.0f;
    for (int64_t k = begin + threadIdx.x; k < end; k += blockDim.x) total += load_float(data[k]);
    total = block_sum(total);
    if (threadIdx.x == 0) out[b] = store_as<Out>(total * factor);
  }
}

// A short extent (kShortExtent at most) and kMinShortOutputs outputs or
// more: one thread per output (o, i), the extent summed in order. The
// kernels below give each output a block or a 32-column tile, which leaves
// most threads idle on short axes: a block per output spent 1 ms on 1.9M
// outputs of 8 (GAT's per-head score sums), 0.29 ms on 232,965 outputs of
// 41 (the score sums of GAT's class layer), and 32-column tiles 0.8 ms on
// the mean over its one head, [232,965, 1, 41] (H200, docs/kernels.md).
template <typename In, typename Out>
__global__ void sum_short_axis_kernel(const In* __restrict__ x, int64_t outputs, int64_t extent, int64_t inner,
                                      float factor, Out* __restrict__ out) {
  for (int64_t j = grid_stride_begin(); j < outputs; j += grid_stride_step()) {
    const int64_t o = j / inner;
    const In* data = x + o * extent * inner + (j - o * inner);
    float total = 0.0f;
    for (int64_t k = 0; k < extent; ++k) total += load_float(data[k * inner]);
    out[j] = store_as<Out>(total * factor);
  }
}

// inner > 1. Block b covers tile (o, columns i0..i0+31) and chunk s of the
// extent; writes factor · sum to out[(s · outer + o) · inner + i].
template <typename In, typename Out>
__global__ void sum_columns_kernel(const In* __restrict__ x, int64_t outer, int64_t extent, int64_t inner,
                                   int64_t splits, int64_t chunk, float factor, Out* __restrict__ out) {
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
      const In* column = x + o * extent * inner + i;
      for (int64_t k = begin + threadIdx.y; k < end; k += kTileRows) total += load_float(column[k * inner]);
    }
    __syncthreads();  // the previous iteration's readers are done with `partial`
    partial[threadIdx.y][threadIdx.x] = total;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
      float sum = 0.0f;
      for (unsigned r = 0; r < kTileRows; ++r) sum += partial[r][threadIdx.x];
      out[(s * outer + o) * inner + i] = store_as<Out>(sum * factor);
    }
  }
}

template <typename In, typename Out>
__global__ void broadcast_kernel(const In* __restrict__ g, int64_t extent, int64_t inner, float factor,
                                 Out* __restrict__ out, int64_t n) {
  for (int64_t j = grid_stride_begin(); j < n; j += grid_stride_step()) {
    const int64_t o = j / (extent * inner);
    out[j] = store_as<Out>(load_float(g[o * inner + j % inner]) * factor);
  }
}

unsigned grid_for(int64_t blocks, Device device) {
  const int64_t cap = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 32;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, cap));
}

// One pass: out gets outer·inner·splits values (the partials when splits > 1).
template <typename In, typename Out>
void launch_sum(const In* x, AxisLayout layout, int64_t splits, float factor, Out* out, Device device) {
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
  const int64_t outputs = layout.outer * layout.inner;
  if (layout.extent <= kShortExtent && outputs >= kMinShortOutputs) {
    const LaunchShape shape = elementwise_launch_shape(outputs, device);
    visit_floating(x.dtype(), [&](auto input_element) {
      visit_floating(out.dtype(), [&](auto output_element) {
        using In = decltype(input_element);
        using Out = decltype(output_element);
        sum_short_axis_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
            layout.extent == 0 ? nullptr : x.data<In>(), outputs, layout.extent, layout.inner, factor,
            out.data<Out>());
      });
    });
    SGNN_CUDA_CHECK_LAUNCH("sum_short_axis_kernel");
    return;
  }
  const int64_t outputs_blocks =
      layout.inner == 1 ? layout.outer : layout.outer * ((layout.inner + kTileColumns - 1) / kTileColumns);
  const int64_t wanted_blocks = static_cast<int64_t>(cuda::properties(device).multiProcessorCount) * 4;
  int64_t splits = 1;
  if (outputs_blocks < wanted_blocks) {
    splits = std::min((wanted_blocks + outputs_blocks - 1) / outputs_blocks, layout.extent / kMinRowsPerSplit);
    splits = std::max<int64_t>(splits, 1);
  }
  visit_floating(x.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      const In* input = x.numel() == 0 ? nullptr : x.data<In>();
      if (splits == 1) {
        launch_sum(input, layout, 1, factor, out.data<Out>(), device);
        return;
      }
      // Partials laid out [outer, splits] (rows) or [splits, outer·inner] (columns),
      // then summed over the split axis.
      Tensor partials = Tensor::empty({layout.outer * layout.inner * splits}, DType::Float32, device);
      launch_sum(input, layout, splits, 1.0f, partials.data<float>(), device);
      const AxisLayout second = layout.inner == 1 ? AxisLayout{layout.outer, splits, 1}
                                                  : AxisLayout{1, splits, layout.outer * layout.inner};
      launch_sum(partials.data<float>(), second, 1, factor, out.data<Out>(), device);
    });
  });
}

void broadcast_axis(Cuda, const Tensor& g, AxisLayout layout, float factor, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  cuda::DeviceGuard guard(out.device());
  const LaunchShape shape = elementwise_launch_shape(n, out.device());
  visit_floating(g.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      broadcast_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(out.device())>>>(
          g.data<In>(), layout.extent, layout.inner, factor, out.data<Out>(), n);
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("broadcast_kernel");
}

}  // namespace sgnn::ops
