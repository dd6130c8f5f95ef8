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
#include "ops/elementwise.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/reduce.hpp"

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

// ‖got − reference‖ / ‖reference‖ (infinity when got has a NaN/Inf), both
// float32 of one shape; got is copied to reference's device if it is not
// there (a GPU result against a CPU reference). Computed on that device, not
// copied to the host: bench_sparse's 18 checks a width made it 4x slower on
// the SBM graph (docs/kernels.md). The sums accumulate in float
// (ops/reduce.hpp); the differences it reported were those of float64 sums
// on the host (7.4e-08 on that graph), and checks compare against ≥ 1e-4.
inline double relative_difference(const Tensor& got, const Tensor& reference) {
  SGNN_CHECK(got.dtype() == DType::Float32 && reference.dtype() == DType::Float32 && got.shape() == reference.shape(),
             "relative_difference: two float32 tensors of one shape, got ", dtype_name(got.dtype()), " ",
             shape_str(got.shape()), " and ", dtype_name(reference.dtype()), " ", shape_str(reference.shape()));
  const Tensor here = got.device() == reference.device() ? got : got.to(reference.device());
  const Tensor difference = ops::add(here, ops::scale(reference, -1.0f));
  const double squared_difference = ops::sum(ops::mul(difference, difference)).item();
  const double squared_norm = ops::sum(ops::mul(reference, reference)).item();
  return std::isfinite(squared_difference) ? std::sqrt(squared_difference / std::max(squared_norm, 1e-30))
                                           : std::numeric_limits<double>::infinity();
}

}  // namespace sgnn::bench
