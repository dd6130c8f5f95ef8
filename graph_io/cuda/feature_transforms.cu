// normalize_feature_rows on the GPU: one warp per row; the row sum is a
// warp-shuffle reduction, then every lane scales its share of the row (and,
// for a bfloat16 output, rounds it in the same pass).
#include "core/bfloat16.hpp"
#include "core/cuda_runtime.hpp"
#include "graph_io/feature_transforms_backend.hpp"

namespace sgnn::graph_io {

namespace {

constexpr int kWarpsPerBlock = 8;

template <typename In, typename Out>
__global__ void normalize_rows_kernel(const In* __restrict__ input, Out* __restrict__ output, int64_t rows,
                                      int64_t cols) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;  // whole warps leave together: no shuffle runs with missing lanes
  const In* in = input + row * cols;
  Out* out = output + row * cols;
  float sum = 0.0f;
  for (int64_t c = lane; c < cols; c += 32) sum += load_float(in[c]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float scale = sum != 0.0f ? 1.0f / sum : 1.0f;
  for (int64_t c = lane; c < cols; c += 32) out[c] = store_as<Out>(load_float(in[c]) * scale);
}

}  // namespace

template <typename In, typename Out>
void normalize_feature_rows_cuda(const In* input, Out* output, int64_t rows, int64_t cols, Device device) {
  if (rows == 0 || cols == 0) return;
  cuda::DeviceGuard guard(device);
  const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  SGNN_CHECK(blocks <= 0x7fffffff, "normalize_feature_rows: too many rows (", rows, ")");
  normalize_rows_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, cuda::stream(device)>>>(
      input, output, rows, cols);
  SGNN_CUDA_CHECK_LAUNCH("normalize_rows_kernel");
}

template void normalize_feature_rows_cuda(const float*, float*, int64_t, int64_t, Device);
template void normalize_feature_rows_cuda(const float*, bfloat16*, int64_t, int64_t, Device);
template void normalize_feature_rows_cuda(const bfloat16*, float*, int64_t, int64_t, Device);
template void normalize_feature_rows_cuda(const bfloat16*, bfloat16*, int64_t, int64_t, Device);

}  // namespace sgnn::graph_io
