// CUDA block copy for concat/split: one cudaMemcpy2DAsync on the library's
// stream, no kernel needed.
#include "core/cuda_runtime.hpp"
#include "ops/shape_backend.hpp"

namespace sgnn::ops {

void copy_block(Cuda, const Tensor& source, Tensor& destination, const BlockCopy& block) {
  if (block.rows == 0 || block.width == 0) return;
  constexpr auto kFloat = static_cast<int64_t>(sizeof(float));
  cuda::DeviceGuard guard(destination.device());
  SGNN_CUDA_CHECK(cudaMemcpy2DAsync(destination.data<float>() + block.destination_offset,
                                    static_cast<std::size_t>(block.destination_stride * kFloat),
                                    source.data<float>() + block.source_offset,
                                    static_cast<std::size_t>(block.source_stride * kFloat),
                                    static_cast<std::size_t>(block.width * kFloat),
                                    static_cast<std::size_t>(block.rows), cudaMemcpyDeviceToDevice,
                                    cuda::stream(destination.device())));
}

}  // namespace sgnn::ops
