#include "core/memory.hpp"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "core/error.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::memory {

namespace {

constexpr std::size_t kHostAlignment = 64;
constexpr int kMaxDevices = 64;

struct Counter {
  std::atomic<int64_t> current{0};
  std::atomic<int64_t> peak{0};
};

// Slot 0 is the host; slot 1 + k is cuda:k.
std::array<Counter, kMaxDevices + 1>& counters() {
  static std::array<Counter, kMaxDevices + 1> all;
  return all;
}

Counter& counter_of(Device device) {
  const int slot = device.is_cpu() ? 0 : 1 + device.index;
  SGNN_CHECK(slot >= 0 && slot <= kMaxDevices, "device index out of range: ", device.str());
  return counters()[static_cast<std::size_t>(slot)];
}

void count_allocation(Device device, std::size_t bytes) {
  Counter& counter = counter_of(device);
  const int64_t now = counter.current.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
  int64_t peak = counter.peak.load();
  while (now > peak && !counter.peak.compare_exchange_weak(peak, now)) {
  }
}

std::string mebibytes(double bytes) {
  return detail::concat(static_cast<int64_t>(bytes / (1024.0 * 1024.0)), " MiB");
}

void* allocate_host(std::size_t bytes, HostKind kind) {
#ifdef SGNN_WITH_CUDA
  if (kind == HostKind::Pinned) {
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status == cudaSuccess) return pointer;
    (void)cudaGetLastError();
    // No driver or pinned memory exhausted: pageable memory still works, only slower to copy.
  }
#else
  (void)kind;
#endif
  const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* pointer = std::aligned_alloc(kHostAlignment, rounded);
  if (pointer == nullptr) {
    throw OutOfMemoryError(detail::concat("host out of memory: could not allocate ", mebibytes(static_cast<double>(bytes)),
                                          " (", bytes, " bytes)"));
  }
  return pointer;
}

#ifdef SGNN_WITH_CUDA
// Keeps freed blocks in the device's default pool: after the first epoch,
// cudaMallocAsync is served from the pool without reaching the driver.
void configure_pool_once(Device device) {
  static std::array<std::once_flag, kMaxDevices> configured;
  std::call_once(configured[static_cast<std::size_t>(device.index)], [&] {
    cudaMemPool_t pool = nullptr;
    SGNN_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device.index));
    uint64_t keep_everything = std::numeric_limits<uint64_t>::max();
    SGNN_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  });
}

void* allocate_device(std::size_t bytes, Device device) {
  require_available(device);
  cuda::DeviceGuard guard(device);
  configure_pool_once(device);
  void* pointer = nullptr;
  const cudaError_t status = cudaMallocAsync(&pointer, bytes, cuda::stream(device));
  if (status == cudaSuccess) return pointer;
  (void)cudaGetLastError();
  if (status != cudaErrorMemoryAllocation) {
    cuda::throw_cuda_error(status, "cudaMallocAsync", __FILE__, __LINE__);
  }
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  (void)cudaMemGetInfo(&free_bytes, &total_bytes);
  (void)cudaGetLastError();
  throw OutOfMemoryError(detail::concat(
      "CUDA out of memory on ", device.str(), ": requested ", mebibytes(static_cast<double>(bytes)),
      ", ", mebibytes(static_cast<double>(free_bytes)), " free of ",
      mebibytes(static_cast<double>(total_bytes)), " (sparsegnn tensors hold ",
      mebibytes(static_cast<double>(counter_of(device).current.load())),
      "); use a smaller hidden size, the CSR format instead of HRPB, or --device cpu"));
}
#endif

}  // namespace

void* allocate(std::size_t bytes, Device device, HostKind host_kind) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  if (device.is_cpu()) {
    pointer = allocate_host(bytes, host_kind);
  } else {
#ifdef SGNN_WITH_CUDA
    pointer = allocate_device(bytes, device);
#else
    require_available(device);  // throws: no CUDA backend in this build
#endif
  }
  count_allocation(device, bytes);
  return pointer;
}

void deallocate(void* pointer, std::size_t bytes, Device device, HostKind host_kind) noexcept {
  if (pointer == nullptr) return;
  counter_of(device).current.fetch_sub(static_cast<int64_t>(bytes));
  if (device.is_cpu()) {
#ifdef SGNN_WITH_CUDA
    if (host_kind == HostKind::Pinned) {
      // cudaFreeHost refuses pointers that did not come from cudaMallocHost
      // (allocate_host's pageable fallback); then std::free owns it.
      if (cudaFreeHost(pointer) == cudaSuccess) return;
      (void)cudaGetLastError();
    }
#else
    (void)host_kind;
#endif
    std::free(pointer);
    return;
  }
#ifdef SGNN_WITH_CUDA
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return;  // driver already shut down at exit
  if (previous != device.index) (void)cudaSetDevice(device.index);
  try {
    // Errors here happen only at process teardown; there is nothing left to free into.
    (void)cudaFreeAsync(pointer, cuda::stream(device));
  } catch (...) {
  }
  (void)cudaGetLastError();
  if (previous != device.index) (void)cudaSetDevice(previous);
#endif
}

void copy(void* destination, Device destination_device, const void* source, Device source_device,
          std::size_t bytes) {
  if (bytes == 0) return;
  if (destination_device.is_cpu() && source_device.is_cpu()) {
    std::memcpy(destination, source, bytes);
    return;
  }
#ifdef SGNN_WITH_CUDA
  const Device gpu = destination_device.is_cuda() ? destination_device : source_device;
  cuda::DeviceGuard guard(gpu);
  const cudaStream_t stream = cuda::stream(gpu);
  if (destination_device.is_cuda() && source_device.is_cuda() &&
      destination_device.index != source_device.index) {
    // The source was produced on its own device's stream: let that finish first.
    SGNN_CUDA_CHECK(cudaStreamSynchronize(cuda::stream(source_device)));
    SGNN_CUDA_CHECK(cudaMemcpyPeerAsync(destination, destination_device.index, source,
                                        source_device.index, bytes, stream));
  } else {
    SGNN_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream));
  }
  // A host buffer may be freed or read as soon as we return.
  if (destination_device.is_cpu() || source_device.is_cpu()) SGNN_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
  require_available(destination_device.is_cuda() ? destination_device : source_device);
#endif
}

void set_zero(void* destination, Device device, std::size_t bytes) {
  if (bytes == 0) return;
  if (device.is_cpu()) {
    std::memset(destination, 0, bytes);
    return;
  }
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  SGNN_CUDA_CHECK(cudaMemsetAsync(destination, 0, bytes, cuda::stream(device)));
#else
  require_available(device);
#endif
}

void synchronize(Device device) {
  if (device.is_cpu()) return;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  SGNN_CUDA_CHECK(cudaStreamSynchronize(cuda::stream(device)));
#else
  require_available(device);
#endif
}

Usage usage(Device device) {
  const Counter& counter = counter_of(device);
  return {counter.current.load(), counter.peak.load()};
}

void reset_peak(Device device) {
  Counter& counter = counter_of(device);
  counter.peak.store(counter.current.load());
}

}  // namespace sgnn::memory
