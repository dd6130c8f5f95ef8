// CUDA runtime helpers for the CUDA backend (include only under
// SGNN_WITH_CUDA): return-code checks, the library's stream, device guards.
//
// All device work of the library runs on one non-blocking stream per device,
// `cuda::stream(device)`, so an epoch is one ordered sequence of kernels with
// no host synchronisation and can be captured into a CUDA Graph.
#pragma once

#ifndef SGNN_WITH_CUDA
#error "core/cuda_runtime.hpp is for the CUDA backend only"
#endif

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "core/error.hpp"

namespace sgnn::cuda {

// Throws CudaError naming the call, the file and line and CUDA's message.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

// The library's stream on `device` (created on first use, never destroyed).
cudaStream_t stream(Device device);
// The library's stream on the current CUDA device.
cudaStream_t current_stream();

// Sets the current CUDA device for the scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Multiprocessor count and other properties of `device`, cached.
const cudaDeviceProp& properties(Device device);

}  // namespace sgnn::cuda

// Checks a CUDA runtime call's return code.
#define SGNN_CUDA_CHECK(call)                                                 \
  do {                                                                        \
    const cudaError_t sgnn_status_ = (call);                                  \
    if (sgnn_status_ != cudaSuccess) [[unlikely]] {                           \
      ::sgnn::cuda::throw_cuda_error(sgnn_status_, #call, __FILE__, __LINE__); \
    }                                                                         \
  } while (false)

// Checks that the kernel launch just made was accepted (bad configuration,
// too much shared memory, ...). Errors inside the kernel surface at the next
// synchronising call, which is checked too.
#define SGNN_CUDA_CHECK_LAUNCH(kernel_name)                                            \
  do {                                                                                 \
    const cudaError_t sgnn_status_ = cudaGetLastError();                               \
    if (sgnn_status_ != cudaSuccess) [[unlikely]] {                                    \
      ::sgnn::cuda::throw_cuda_error(sgnn_status_, "launch of " kernel_name, __FILE__, \
                                     __LINE__);                                        \
    }                                                                                  \
  } while (false)
