// Shared by the CUDA benchmarks: cuSPARSE status checks, CUDA-event timing
// (median of N runs after warm-up, on the library's stream) and the relative
// difference used to check a result before it is timed.
#pragma once

#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "core/tensor.hpp"
#include "ops/kernel_timer.hpp"

#define BENCH_CUSPARSE(call)                                                                          \
  do {                                                                                                \
    const cusparseStatus_t status_ = (call);                                                          \
    if (status_ != CUSPARSE_STATUS_SUCCESS) {                                                         \
      throw ::sgnn::CudaError(std::string(#call) + " failed: " + cusparseGetErrorString(status_));    \
    }                                                                                                 \
  } while (false)

namespace sgnn::bench {

// Median milliseconds of `runs` timed calls after `warmup` untimed ones: the
// GPU time of what each call queues, not the host's time to queue it
// (ops::device_launch_ms).
inline double median_ms(const std::function<void()>& call, int warmup, int runs, Device device = Device::cuda(0)) {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(ops::device_launch_ms(device, call));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// ‖got − reference‖ / ‖reference‖ in float64 (infinity when got has a NaN/Inf).
inline double relative_difference(const Tensor& got, const Tensor& reference) {
  const std::vector<float> a = got.to_vector<float>();
  const std::vector<float> b = reference.to_vector<float>();
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double{a[i]} - double{b[i]}) * (double{a[i]} - double{b[i]});
    norm += double{b[i]} * double{b[i]};
  }
  return std::isfinite(diff) ? std::sqrt(diff / std::max(norm, 1e-30)) : std::numeric_limits<double>::infinity();
}

}  // namespace sgnn::bench
