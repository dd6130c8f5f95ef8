#include "sampling/work_context.hpp"

#include <cstring>

#include "sampling/device_arena.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::sampling {

namespace {

#ifdef SGNN_WITH_CUDA
cudaStream_t stream_of(const WorkContext& context) {
  return context.cuda_stream != nullptr ? static_cast<cudaStream_t>(context.cuda_stream) : cuda::stream(context.device);
}
#endif

}  // namespace

Tensor WorkContext::allocate(const Shape& shape, DType dtype) const {
  if (arena != nullptr) {
    SGNN_CHECK(arena->device() == device, "WorkContext: the arena is on ", arena->device().str(), ", the context on ",
               device.str());
    return arena->take(shape, dtype);
  }
  SGNN_CHECK(cuda_stream == nullptr, "WorkContext: a stream of its own needs an arena (see work_context.hpp)");
  return Tensor::empty(shape, dtype, device);
}

std::vector<int64_t> WorkContext::read(const Tensor& values) const {
  check_dtype(values, DType::Int64, "WorkContext::read", "values");
  std::vector<int64_t> host(static_cast<std::size_t>(values.numel()));
  if (host.empty()) return host;
  if (values.device().is_cpu()) {
    std::memcpy(host.data(), values.raw_data(), values.nbytes());
    return host;
  }
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = stream_of(*this);
  SGNN_CUDA_CHECK(cudaMemcpyAsync(host.data(), values.raw_data(), values.nbytes(), cudaMemcpyDeviceToHost, stream));
  SGNN_CUDA_CHECK(cudaStreamSynchronize(stream));
#endif
  return host;
}

void WorkContext::copy(void* destination, const void* source, std::size_t bytes) const {
  if (bytes == 0) return;
  if (device.is_cpu()) {
    std::memcpy(destination, source, bytes);
    return;
  }
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  SGNN_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream_of(*this)));
#else
  require_available(device);
#endif
}

}  // namespace sgnn::sampling
