#include "sampling/host_access.hpp"

#include <algorithm>

#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::sampling {

namespace {

#ifdef SGNN_WITH_CUDA
bool pinned(const void* pointer) {
  cudaPointerAttributes attributes{};
  SGNN_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  return attributes.type == cudaMemoryTypeHost;
}
#endif

}  // namespace

HostAccess::HostAccess(const Tensor& host, Device device) {
  check_defined(host, "HostAccess", "host");
  SGNN_CHECK(host.device().is_cpu(), "HostAccess: the tensor is on ", host.device().str(), ", not in host memory");
  device_pointer_ = host.raw_data();
  if (device.is_cpu() || host.nbytes() == 0) return;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  SGNN_CHECK(pinned(host.raw_data()), "HostAccess: the tensor is in pageable host memory; make_host_readable copies "
                                      "it into pinned memory, which ", device.str(), " reads at its address");
  int host_address_works = 0;
  SGNN_CUDA_CHECK(cudaDeviceGetAttribute(&host_address_works, cudaDevAttrUnifiedAddressing, device.index));
  if (host_address_works == 0) {
    throw CudaError(detail::concat("HostAccess: ", device.str(), " cannot read pinned host memory at its address"));
  }
#else
  require_available(device);
#endif
}

Tensor make_host_readable(const Tensor& host, Device device, std::unique_ptr<HostAccess>& access) {
  Tensor readable = host;
#ifdef SGNN_WITH_CUDA
  if (device.is_cuda() && host.nbytes() > 0 && !pinned(host.raw_data())) {
    readable = Tensor::empty_pinned(host.shape(), host.dtype());
    const auto* from = static_cast<const char*>(host.raw_data());
    auto* to = static_cast<char*>(readable.raw_data());
    const auto bytes = static_cast<int64_t>(host.nbytes());
    constexpr int64_t kPiece = int64_t{1} << 24;
#pragma omp parallel for schedule(static)
    for (int64_t offset = 0; offset < bytes; offset += kPiece) {
      std::copy(from + offset, from + std::min(bytes, offset + kPiece), to + offset);
    }
  }
#endif
  access = std::make_unique<HostAccess>(readable, device);
  return readable;
}

}  // namespace sgnn::sampling
