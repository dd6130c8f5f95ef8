// Confusion matrix on CUDA: one thread per selected row (argmax over the
// row's classes), 64-bit atomic counts. The counts are read back to the host,
// which is the one synchronisation a metric needs.
#include "core/cuda/launch.cuh"
#include "ops/classification_backend.hpp"
#include "ops/classification_math.hpp"

namespace sgnn::ops {

namespace {

// counts[C·C] is the number of rows with an index or label out of range.
template <typename T>
__global__ void confusion_kernel(const T* __restrict__ logits, const int32_t* __restrict__ labels,
                                 const int32_t* __restrict__ index, int64_t rows, int64_t classes,
                                 int64_t selected, unsigned long long* counts) {
  for (int64_t e = grid_stride_begin(); e < selected; e += grid_stride_step()) {
    const int64_t r = index != nullptr ? static_cast<int64_t>(index[e]) : e;
    if (r < 0 || r >= rows || labels[r] < 0 || labels[r] >= classes) {
      atomicAdd(counts + classes * classes, 1ull);
      continue;
    }
    atomicAdd(counts + labels[r] * classes + predicted_class(logits + r * classes, classes), 1ull);
  }
}

}  // namespace

int64_t confusion_counts(Cuda, const Tensor& logits, const Tensor& labels, const Tensor& index, Tensor& counts) {
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  const int64_t selected = index.defined() ? index.numel() : rows;
  const Device device = logits.device();
  cuda::DeviceGuard guard(device);
  Tensor device_counts = Tensor::zeros({classes * classes + 1}, DType::Int64, device);
  if (selected > 0) {
    const LaunchShape shape = elementwise_launch_shape(selected, device);
    static_assert(sizeof(unsigned long long) == sizeof(int64_t));
    visit_floating(logits.dtype(), [&](auto element) {
      using T = decltype(element);
      confusion_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
          logits.data<T>(), labels.data<int32_t>(), index.defined() ? index.data<int32_t>() : nullptr, rows,
          classes, selected, reinterpret_cast<unsigned long long*>(device_counts.data<int64_t>()));
    });
    SGNN_CUDA_CHECK_LAUNCH("confusion_kernel");
  }
  const std::vector<int64_t> host = device_counts.to_vector<int64_t>();  // waits for the kernel
  std::copy_n(host.begin(), classes * classes, counts.data<int64_t>());
  return host.back();
}

}  // namespace sgnn::ops
