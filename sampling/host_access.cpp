#include "sampling/host_access.hpp"

#include <algorithm>

#ifdef SGNN_WITH_CUDA
#include <sys/mman.h>

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

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// A mapping of our own, asked for 2 MiB pages and page-locked once filled
// (see host_access.hpp); unlocked and unmapped with the last tensor on it.
struct LockedMapping {
  void* base = nullptr;
  std::size_t bytes = 0;
  bool locked = false;
  ~LockedMapping() {
    if (locked) (void)cudaHostUnregister(base);
    (void)cudaGetLastError();
    if (base != nullptr) munmap(base, bytes);
  }
};

// Threads copy (and so fault in the target's pages) in parallel.
void parallel_copy(const Tensor& host, void* target) {
  const auto* from = static_cast<const char*>(host.raw_data());
  auto* to = static_cast<char*>(target);
  const auto bytes = static_cast<int64_t>(host.nbytes());
  constexpr int64_t kPiece = int64_t{1} << 24;
#pragma omp parallel for schedule(static)
  for (int64_t offset = 0; offset < bytes; offset += kPiece) {
    std::copy(from + offset, from + std::min(bytes, offset + kPiece), to + offset);
  }
}

// The copy in a mapping of our own; undefined where the mapping or its
// locking is refused (the caller then copies into cudaMallocHost memory).
Tensor locked_huge_page_copy(const Tensor& host, Device device) {
  auto mapping = std::make_shared<LockedMapping>();
  mapping->bytes = (host.nbytes() + kHugePage - 1) / kHugePage * kHugePage;
  void* base = mmap(nullptr, mapping->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return Tensor();
  mapping->base = base;
  // A hint: where the kernel has no huge pages to give, 4 KiB pages still work.
  (void)madvise(base, mapping->bytes, MADV_HUGEPAGE);
  parallel_copy(host, base);
  cuda::DeviceGuard guard(device);
  if (cudaHostRegister(base, mapping->bytes, cudaHostRegisterDefault) != cudaSuccess) {
    (void)cudaGetLastError();
    return Tensor();  // unmapped with `mapping`
  }
  mapping->locked = true;
  return Tensor::from_external(base, host.shape(), host.dtype(), std::shared_ptr<const void>(mapping, base));
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
    readable = locked_huge_page_copy(host, device);
    if (!readable.defined()) {
      readable = Tensor::empty_pinned(host.shape(), host.dtype());
      parallel_copy(host, readable.raw_data());
    }
  }
#endif
  access = std::make_unique<HostAccess>(readable, device);
  return readable;
}

}  // namespace sgnn::sampling
