// NaN/Inf search on CUDA: one grid-stride kernel; each warp folds its count
// and its smallest non-finite index with shuffles, and lane 0 adds them into
// a 2-word result with atomicAdd / atomicMin (order-independent: the count
// and the minimum do not depend on the order of the atomics).
#include <climits>

#include "core/cuda/launch.cuh"
#include "core/memory.hpp"
#include "ops/nonfinite_check_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// result[0] += non-finite count, result[1] = min(result[1], first index).
// Every thread reaches the shuffles (no early return); blockDim.x is a
// multiple of 32.
template <typename T>
__global__ void count_nonfinite_kernel(const T* __restrict__ x, int64_t n,
                                       unsigned long long* __restrict__ result) {
  unsigned long long count = 0;
  unsigned long long first = ULLONG_MAX;
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) {
    if (!isfinite(load_float(x[i]))) {
      ++count;
      if (first == ULLONG_MAX) first = static_cast<unsigned long long>(i);  // a thread's indices increase
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    count += __shfl_xor_sync(kFullMask, count, offset);
    const unsigned long long other = __shfl_xor_sync(kFullMask, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31u) == 0 && count > 0) {
    atomicAdd(&result[0], count);
    atomicMin(&result[1], first);
  }
}

}  // namespace

NonfiniteReport count_nonfinite(Cuda, const Tensor& x) {
  NonfiniteReport report;
  const int64_t n = x.numel();
  if (n == 0) return report;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  Tensor result = Tensor::empty({2}, DType::Int64, device);
  auto* words = static_cast<unsigned long long*>(result.raw_data());
  SGNN_CUDA_CHECK(cudaMemsetAsync(words, 0, sizeof(unsigned long long), stream));
  SGNN_CUDA_CHECK(cudaMemsetAsync(words + 1, 0xFF, sizeof(unsigned long long), stream));  // ULLONG_MAX
  const LaunchShape shape = elementwise_launch_shape(n, device);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    count_nonfinite_kernel<<<shape.blocks, shape.threads, 0, stream>>>(x.data<T>(), n, words);
  });
  SGNN_CUDA_CHECK_LAUNCH("count_nonfinite_kernel");
  unsigned long long host[2] = {0, 0};
  memory::copy(host, Device::cpu(), words, device, sizeof(host));  // waits for the kernel
  report.count = static_cast<int64_t>(host[0]);
  report.first_index = report.count > 0 ? static_cast<int64_t>(host[1]) : -1;
  return report;
}

}  // namespace sgnn::ops
