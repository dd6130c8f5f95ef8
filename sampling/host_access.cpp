#include "sampling/host_access.hpp"

#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::sampling {

HostAccess::HostAccess(const Tensor& host, Device device) : device_(device) {
  check_defined(host, "HostAccess", "host");
  SGNN_CHECK(host.device().is_cpu(), "HostAccess: the tensor is on ", host.device().str(), ", not in host memory");
  host_pointer_ = host.raw_data();
  device_pointer_ = host_pointer_;
  if (device.is_cpu() || host.nbytes() == 0) return;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  cudaPointerAttributes attributes{};
  SGNN_CUDA_CHECK(cudaPointerGetAttributes(&attributes, host_pointer_));
  if (attributes.type != cudaMemoryTypeHost) {
    int read_only = 0;
    SGNN_CUDA_CHECK(cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, device.index));
    const unsigned flags = cudaHostRegisterMapped | cudaHostRegisterPortable | (read_only != 0 ? cudaHostRegisterReadOnly : 0u);
    SGNN_CUDA_CHECK(cudaHostRegister(host_pointer_, host.nbytes(), flags));
    registered_ = true;
  }
  void* mapped = nullptr;
  SGNN_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, host_pointer_, 0));
  device_pointer_ = mapped;
#else
  require_available(device);
#endif
}

HostAccess::~HostAccess() {
#ifdef SGNN_WITH_CUDA
  if (registered_) {
    // Kernels on any stream may still read it: let them finish (teardown only).
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess) {
      (void)cudaSetDevice(device_.index);
      (void)cudaDeviceSynchronize();
      (void)cudaHostUnregister(host_pointer_);
      (void)cudaSetDevice(previous);
    }
    (void)cudaGetLastError();
  }
#endif
}

}  // namespace sgnn::sampling
