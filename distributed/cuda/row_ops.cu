// One thread per output element (row i, feature j); consecutive threads walk
// a row's features, so loads and stores of a row are coalesced.
#include "core/cuda/launch.cuh"
#include "distributed/row_ops_backend.hpp"

namespace sgnn::distributed {

namespace {

__global__ void gather_rows_kernel(const float* __restrict__ x, const int32_t* __restrict__ index,
                                   float* __restrict__ out, int64_t rows, int64_t width) {
  const int64_t total = rows * width;
  for (int64_t e = grid_stride_begin(); e < total; e += grid_stride_step()) {
    const int64_t i = e / width;
    const int64_t j = e - i * width;
    out[e] = x[static_cast<int64_t>(index[i]) * width + j];
  }
}

// Index rows are distinct, so no two threads write the same element.
__global__ void scatter_add_rows_kernel(float* __restrict__ target, const int32_t* __restrict__ index,
                                        const float* __restrict__ rows, int64_t count, int64_t width) {
  const int64_t total = count * width;
  for (int64_t e = grid_stride_begin(); e < total; e += grid_stride_step()) {
    const int64_t i = e / width;
    const int64_t j = e - i * width;
    target[static_cast<int64_t>(index[i]) * width + j] += rows[e];
  }
}

}  // namespace

void gather_rows(ops::Cuda, const Tensor& x, const Tensor& index, Tensor& out) {
  const int64_t width = x.size(1);
  const int64_t total = index.numel() * width;
  if (total == 0) return;
  cuda::DeviceGuard guard(x.device());
  const LaunchShape shape = elementwise_launch_shape(total, x.device());
  gather_rows_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(x.device())>>>(
      x.data<float>(), index.data<int32_t>(), out.data<float>(), index.numel(), width);
  SGNN_CUDA_CHECK_LAUNCH("gather_rows_kernel");
}

void scatter_add_rows(ops::Cuda, Tensor& target, const Tensor& index, const Tensor& rows) {
  const int64_t width = target.size(1);
  const int64_t total = index.numel() * width;
  if (total == 0) return;
  cuda::DeviceGuard guard(target.device());
  const LaunchShape shape = elementwise_launch_shape(total, target.device());
  scatter_add_rows_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(target.device())>>>(
      target.data<float>(), index.data<int32_t>(), rows.data<float>(), index.numel(), width);
  SGNN_CUDA_CHECK_LAUNCH("scatter_add_rows_kernel");
}

}  // namespace sgnn::distributed
