// CUDA block copy for concat/split: one cudaMemcpy2DAsync on the library's
// stream, no kernel needed.
#include "core/cuda_runtime.hpp"
#include "ops/shape_backend.hpp"

namespace sgnn::ops {

void copy_block(Cuda, const Tensor& source, Tensor& destination, const BlockCopy& block) {
  if (block.rows == 0 || block.width == 0) return;
  const auto element = static_cast<int64_t>(dtype_size(source.dtype()));
  cuda::DeviceGuard guard(destination.device());
  SGNN_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(destination.raw_data()) + block.destination_offset * element,
                                    static_cast<std::size_t>(block.destination_stride * element),
                                    static_cast<const char*>(source.raw_data()) + block.source_offset * element,
                                    static_cast<std::size_t>(block.source_stride * element),
                                    static_cast<std::size_t>(block.width * element),
                                    static_cast<std::size_t>(block.rows), cudaMemcpyDeviceToDevice,
                                    cuda::stream(destination.device())));
}

}  // namespace sgnn::ops
