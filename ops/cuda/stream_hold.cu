#include "core/cuda/launch.cuh"
#include "core/cuda_runtime.hpp"
#include "core/error.hpp"
#include "ops/stream_hold.hpp"

namespace sgnn::ops {

namespace {

__device__ __forceinline__ uint64_t global_nanoseconds() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// One thread waits on the GPU's global timer: nothing else of the stream runs meanwhile.
__global__ void hold_kernel(uint64_t nanoseconds) {
  const uint64_t start = global_nanoseconds();
  while (global_nanoseconds() - start < nanoseconds) __nanosleep(1000);
}

}  // namespace

void hold_stream(Device device, double microseconds) {
  SGNN_CHECK(device.is_cuda(), "hold_stream: needs a CUDA device, got ", device.str());
  SGNN_CHECK(microseconds >= 0.0 && microseconds <= 1e6, "hold_stream: ", microseconds,
             " microseconds is outside [0, 1 s]");
  cuda::DeviceGuard guard(device);
  hold_kernel<<<1, 1, 0, cuda::stream(device)>>>(static_cast<uint64_t>(microseconds * 1000.0));
  SGNN_CUDA_CHECK_LAUNCH("hold_kernel");
}

}  // namespace sgnn::ops
