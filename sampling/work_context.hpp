// WorkContext: where the sampler and the gathers put their results and
// temporaries, and which CUDA stream runs their kernels.
//
//   device       the CPU, or the CUDA device the kernels run on
//   cuda_stream  a cudaStream_t; null: the library's stream of `device`
//                (core/cuda_runtime.hpp). A stream of its own needs an arena:
//                tensors from the library's stream-ordered pool may still be
//                in use by that stream, arena memory is the caller's to order
//   arena        null: fresh tensors (Tensor::empty); else views into the
//                arena's buffers, valid until its next reset()
//
// The mini-batch pipeline (sampling/batch_pipeline.hpp) gives each batch in
// flight an arena and samples on a stream of its own; everything else uses
// the default context of a device.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::sampling {

class DeviceArena;

struct WorkContext {
  Device device = Device::cpu();
  void* cuda_stream = nullptr;
  DeviceArena* arena = nullptr;

  static WorkContext on(Device device) { return WorkContext{device, nullptr, nullptr}; }

  // A tensor of `shape` and `dtype` on `device` (contents undefined).
  Tensor allocate(const Shape& shape, DType dtype) const;
  // The int64 elements of a small tensor on `device`, on the host. On CUDA it
  // waits for this context's stream only (not the library's).
  std::vector<int64_t> read(const Tensor& values) const;
  // Copies `bytes` from `source` to `destination` (either side host or
  // device memory), ordered on this context's stream; asynchronous on CUDA.
  void copy(void* destination, const void* source, std::size_t bytes) const;
};

}  // namespace sgnn::sampling
