// HostAccess: host memory that kernels of a CUDA device read directly, over
// unified virtual addressing (DGL's "UVA" sampling and gathers): a graph or
// a feature matrix too large for the device stays in host memory and only
// the rows a batch touches cross the bus.
//
// Only pinned memory (Tensor::empty_pinned, cudaMallocHost) is read in
// place: the device reads it at its host address. Other host memory
// (pageable, or the mapped processed dataset file) is copied once by
// make_host_readable into a mapping of its own, asked for 2 MiB pages
// (madvise) and page-locked whole with cudaHostRegister: host threads then
// read its random rows with far fewer translation misses (35 against 23
// GB/s on the H200's host, 16 threads, 28 GB), and locking a filled
// mapping took 1.6 s where cudaMallocHost of 28 GB took 17 (docs/sampling.md).
// Where the mapping or its locking is refused, the copy goes to
// cudaMallocHost memory instead.
// Page-locking the caller's memory in place was tried and dropped: the
// locked range is rounded out to whole pages, which other host objects
// share, and a copy of such an object that straddles the locked range's end
// fails (cudaErrorInvalidValue; the GPU tier's gather tests on the H200);
// nothing else lives in a mapping of our own.
//
// On the CPU (or a build without CUDA) device_pointer() is the host pointer.
// Throws InvalidArgument for a tensor not in host memory or, on a CUDA
// device, not pinned; CudaError on a device that cannot read pinned host
// memory at its address. The tensor must outlive the HostAccess.
#pragma once

#include <memory>

#include "core/tensor.hpp"

namespace sgnn::sampling {

class HostAccess {
 public:
  HostAccess(const Tensor& host, Device device);
  HostAccess(const HostAccess&) = delete;
  HostAccess& operator=(const HostAccess&) = delete;

  const void* device_pointer() const { return device_pointer_; }

 private:
  const void* device_pointer_ = nullptr;
};

// `host` made readable by `device` (access set): `host` itself where it is
// pinned (or the device is the CPU), else a pinned copy of it. Returns the
// tensor the device reads.
Tensor make_host_readable(const Tensor& host, Device device, std::unique_ptr<HostAccess>& access);

}  // namespace sgnn::sampling
