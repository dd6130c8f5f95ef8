#include "ops/kernel_timer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>

#include "core/error.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::ops {

namespace {
std::atomic<int64_t> timed{0};
std::atomic<int64_t> timing_microseconds{0};
// Timings in progress on this thread: a candidate's first launch may time
// its own kernels (the CSR SpMM timed against HRPB picks its tile then), and
// that wall time is counted once, by the outermost timing.
thread_local int timing_depth = 0;
}  // namespace

int64_t candidates_timed() { return timed.load(std::memory_order_relaxed); }

double timing_milliseconds() { return static_cast<double>(timing_microseconds.load(std::memory_order_relaxed)) / 1000.0; }

bool stream_capturing(Device device) {
  if (!device.is_cuda()) return false;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SGNN_CUDA_CHECK(cudaStreamIsCapturing(cuda::stream(device), &status));
  return status != cudaStreamCaptureStatusNone;
#else
  return false;
#endif
}

double fastest_of_two_ms(Device device, const std::function<void()>& launch) {
  require_available(device);
  SGNN_CHECK(device.is_cuda(), "fastest_of_two_ms: timing needs a CUDA device, got ", device.str());
  timed.fetch_add(1, std::memory_order_relaxed);
  struct AddWallTime {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    bool outermost = timing_depth++ == 0;
    ~AddWallTime() {
      --timing_depth;
      if (!outermost) return;
      timing_microseconds.fetch_add(
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count(),
          std::memory_order_relaxed);
    }
  } add_wall_time;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  SGNN_CUDA_CHECK(cudaEventCreate(&start));
  SGNN_CUDA_CHECK(cudaEventCreate(&stop));
  float best = std::numeric_limits<float>::infinity();
  try {
    for (int attempt = 0; attempt < 2; ++attempt) {
      SGNN_CUDA_CHECK(cudaEventRecord(start, stream));
      launch();
      SGNN_CUDA_CHECK(cudaEventRecord(stop, stream));
      SGNN_CUDA_CHECK(cudaEventSynchronize(stop));
      float milliseconds = 0;
      SGNN_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
      best = std::min(best, milliseconds);
    }
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  SGNN_CUDA_CHECK(cudaEventDestroy(start));
  SGNN_CUDA_CHECK(cudaEventDestroy(stop));
  return best;
#else
  (void)launch;
  return 0.0;
#endif
}

}  // namespace sgnn::ops
