// normalize_feature_rows on the GPU: one warp per row; the row sum is a
// warp-shuffle reduction, then every lane scales its share of the row (and,
// for a bfloat16 output, rounds it in the same pass).
#include "core/bfloat16.hpp"
#include "core/cuda_runtime.hpp"
#include "graph_io/feature_transforms_backend.hpp"

namespace sgnn::graph_io {

namespace {

constexpr int kWarpsPerBlock = 8;

template <typename Out>
__global__ void normalize_rows_kernel(const float* __restrict__ input, Out* __restrict__ output, int64_t rows,
                                      int64_t cols) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;  // whole warps leave together: no shuffle runs with missing lanes
  const float* in = input + row * cols;
  Out* out = output + row * cols;
  float sum = 0.0f;
  for (int64_t c = lane; c < cols; c += 32) sum += in[c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float scale = sum != 0.0f ? 1.0f / sum : 1.0f;
  for (int64_t c = lane; c < cols; c += 32) out[c] = store_as<Out>(in[c] * scale);
}

template <typename Out>
void launch(const float* input, Out* output, int64_t rows, int64_t cols, Device device) {
  if (rows == 0 || cols == 0) return;
  cuda::DeviceGuard guard(device);
  const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  SGNN_CHECK(blocks <= 0x7fffffff, "normalize_feature_rows: too many rows (", rows, ")");
  normalize_rows_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, cuda::stream(device)>>>(
      input, output, rows, cols);
  SGNN_CUDA_CHECK_LAUNCH("normalize_rows_kernel");
}

}  // namespace

void normalize_feature_rows_cuda(const float* input, float* output, int64_t rows, int64_t cols, Device device) {
  launch(input, output, rows, cols, device);
}

void normalize_feature_rows_cuda(const float* input, bfloat16* output, int64_t rows, int64_t cols, Device device) {
  launch(input, output, rows, cols, device);
}

}  // namespace sgnn::graph_io
