#include "sampling/host_access.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>

#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::sampling {

#ifdef SGNN_WITH_CUDA
namespace {

// The page ranges this process has page-locked, with their users. Two
// tables may share a page (adjacent sections of one mapped file, two heap
// blocks): a range already locked is reused, only the pages no range covers
// yet are registered, and a range is unlocked when its last user goes.
class RegisteredPages {
 public:
  static RegisteredPages& instance() {
    static RegisteredPages* pages = new RegisteredPages;  // outlives the tensors released at exit
    return *pages;
  }

  // Locks [begin, end) (page-aligned); returns the starts of the ranges now in use.
  std::vector<uintptr_t> acquire(uintptr_t begin, uintptr_t end, unsigned flags) {
    const std::lock_guard<std::mutex> lock(mutex_);
    uintptr_t cursor = begin;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second.end > begin) --it;
    std::vector<std::pair<uintptr_t, uintptr_t>> gaps;
    for (auto scan = it; scan != ranges_.end() && scan->first < end; ++scan) {
      if (scan->first > cursor) gaps.emplace_back(cursor, scan->first);
      cursor = std::max(cursor, scan->second.end);
    }
    if (cursor < end) gaps.emplace_back(cursor, end);
    for (const auto& [from, to] : gaps) {
      SGNN_CUDA_CHECK(cudaHostRegister(reinterpret_cast<void*>(from), to - from, flags));
      ranges_[from] = Range{to, 0};
    }
    std::vector<uintptr_t> used;
    auto first = ranges_.upper_bound(begin);
    if (first != ranges_.begin() && std::prev(first)->second.end > begin) --first;
    for (auto scan = first; scan != ranges_.end() && scan->first < end; ++scan) {
      ++scan->second.users;
      used.push_back(scan->first);
    }
    return used;
  }

  void release(const std::vector<uintptr_t>& starts) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const uintptr_t start : starts) {
      const auto it = ranges_.find(start);
      if (it == ranges_.end() || --it->second.users > 0) continue;
      (void)cudaHostUnregister(reinterpret_cast<void*>(start));
      (void)cudaGetLastError();
      ranges_.erase(it);
    }
  }

 private:
  struct Range {
    uintptr_t end;
    int64_t users;
  };
  std::mutex mutex_;
  std::map<uintptr_t, Range> ranges_;
};

}  // namespace
#endif

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
  if (attributes.type == cudaMemoryTypeHost) return;  // pinned already (cudaMallocHost): the same address on the device
  int host_address_works = 0;
  SGNN_CUDA_CHECK(cudaDeviceGetAttribute(&host_address_works, cudaDevAttrCanUseHostPointerForRegisteredMem, device.index));
  if (host_address_works == 0) {
    throw CudaError(detail::concat("HostAccess: ", device.str(),
                                   " cannot read page-locked host memory at its host address"));
  }
  int read_only = 0;
  SGNN_CUDA_CHECK(cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, device.index));
  const unsigned flags = cudaHostRegisterMapped | cudaHostRegisterPortable | (read_only != 0 ? cudaHostRegisterReadOnly : 0u);
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(host_pointer_) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(host_pointer_) + host.nbytes() + page - 1) / page * page;
  ranges_ = RegisteredPages::instance().acquire(begin, end, flags);
  registered_ = true;
#else
  require_available(device);
#endif
}

Tensor make_host_readable(const Tensor& host, Device device, std::unique_ptr<HostAccess>& access) {
  try {
    access = std::make_unique<HostAccess>(host, device);
    return host;
  } catch (const InvalidArgument&) {
    throw;
  } catch (const Error&) {
    // Refused in place (a limit on locked memory, a mapping or device the
    // driver will not take): a pinned copy instead.
    Tensor pinned = Tensor::empty_pinned(host.shape(), host.dtype());
    const auto* from = static_cast<const char*>(host.raw_data());
    auto* to = static_cast<char*>(pinned.raw_data());
    const auto bytes = static_cast<int64_t>(host.nbytes());
    constexpr int64_t kPiece = int64_t{1} << 24;
#pragma omp parallel for schedule(static)
    for (int64_t offset = 0; offset < bytes; offset += kPiece) {
      std::copy(from + offset, from + std::min(bytes, offset + kPiece), to + offset);
    }
    access = std::make_unique<HostAccess>(pinned, device);
    return pinned;
  }
}

HostAccess::~HostAccess() {
#ifdef SGNN_WITH_CUDA
  if (registered_) {
    // Kernels on any stream may still read the memory: let them finish (teardown only).
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess) {
      (void)cudaSetDevice(device_.index);
      (void)cudaDeviceSynchronize();
      RegisteredPages::instance().release(ranges_);
      (void)cudaSetDevice(previous);
    }
    (void)cudaGetLastError();
  }
#endif
}

}  // namespace sgnn::sampling
