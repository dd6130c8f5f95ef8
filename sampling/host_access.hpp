// HostAccess: host memory that kernels of a CUDA device read directly, over
// unified virtual addressing (DGL's "UVA" sampling and gathers): a graph or
// a feature matrix too large for the device stays in host memory and only
// the rows a batch touches cross the bus.
//
// Pinned memory (Tensor::empty_pinned, cudaMallocHost) is used as it is.
// Other host memory (pageable, or the mapped processed dataset file) is
// page-locked in place with cudaHostRegister for the object's lifetime,
// read-only where the device supports it, so the pages of a mapped file
// stay the page cache's (no private copy) and the mapping is never written.
// Pages shared with another table (adjacent sections of one file) are
// locked once and unlocked when their last user goes. The device reads the
// memory at its host address (unified addressing; CudaError on a device that
// cannot). The tensor must outlive the HostAccess.
//
// On the CPU (or a build without CUDA) device_pointer() is the host pointer.
// Throws InvalidArgument for a tensor not in host memory, CudaError when the
// memory cannot be page-locked (e.g. above the limit of locked memory).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::sampling {

class HostAccess {
 public:
  HostAccess(const Tensor& host, Device device);
  ~HostAccess();
  HostAccess(const HostAccess&) = delete;
  HostAccess& operator=(const HostAccess&) = delete;

  const void* device_pointer() const { return device_pointer_; }
  // Whether this object page-locked the memory (false: it was pinned already, or CPU).
  bool registered() const { return registered_; }

 private:
  void* host_pointer_ = nullptr;
  const void* device_pointer_ = nullptr;
  bool registered_ = false;
  Device device_;
  std::vector<uintptr_t> ranges_;  // the locked page ranges this object uses
};

// `host` made readable by `device`: page-locked in place (access set), or,
// where that is refused (a limit on locked memory, a device that cannot
// read host memory at its address), copied to pinned memory. Returns the
// tensor the device reads: `host` itself or the pinned copy.
Tensor make_host_readable(const Tensor& host, Device device, std::unique_ptr<HostAccess>& access);

}  // namespace sgnn::sampling
