// nll / cross-entropy on CUDA. Nothing here reads device memory from the
// host: label and index faults become NaN losses (see ops/loss.hpp), and the
// upstream gradient is read by the kernel.
//
// A row is read by a group of lanes sized to its classes (4 to 32, about
// eight values a lane), several rows to a warp: a row's work is a chain of
// dependent loads and shuffles, and with 41 classes a whole warp per row
// left three quarters of its lanes idle and each warp walking many rows in
// turn (docs/kernels.md).
#include "ops/cuda/warp_reduce.cuh"
#include "ops/loss_backend.hpp"
#include "ops/loss_math.hpp"

namespace sgnn::ops {

namespace {

// log Σ_c exp(row[c]) over a group of kLanes lanes (every lane gets it), shifted by the row maximum.
template <int kLanes, typename T>
__device__ float group_log_sum_exp(const T* row, int64_t cols, unsigned lane) {
  const float shift = warp_row_shift<kLanes>(row, cols, lane);
  return shift + logf(warp_row_exp_sum<kLanes>(row, cols, shift, lane));
}

// The group of kLanes lanes this thread belongs to, and its lane in it. Every
// lane of a warp runs the same loop trips (the shuffles take the full mask):
// a group past the end reads an empty row and writes nothing.
template <int kLanes>
struct RowGroup {
  static constexpr int64_t kPerWarp = 32 / kLanes;
  unsigned lane;
  int64_t group;
  __device__ RowGroup() : lane(threadIdx.x & (kLanes - 1)), group((threadIdx.x & 31u) / kLanes) {}
  __device__ int64_t begin() const { return warp_row_begin() * kPerWarp; }
  __device__ int64_t step() const { return warp_row_step() * kPerWarp; }
};

// One group per selected entry e.
template <int kLanes, typename T>
__global__ void loss_per_row_kernel(LossKind kind, const T* __restrict__ x, const int32_t* __restrict__ labels,
                                    const int32_t* __restrict__ index, int64_t rows, int64_t classes,
                                    int64_t selected, float* __restrict__ per_row) {
  const RowGroup<kLanes> lanes;
  for (int64_t base = lanes.begin(); base < selected; base += lanes.step()) {
    const int64_t e = base + lanes.group;
    const int64_t r = e < selected ? selected_row(e, index, labels, rows, classes) : -1;
    const T* row = x + (r < 0 ? 0 : r) * classes;
    const int64_t width = r < 0 ? 0 : classes;
    const float lse = kind == LossKind::CrossEntropy ? group_log_sum_exp<kLanes>(row, width, lanes.lane) : 0.0f;
    if (lanes.lane != 0 || e >= selected) continue;
    per_row[e] = r < 0 ? NAN : (kind == LossKind::CrossEntropy ? lse : 0.0f) - load_float(row[labels[r]]);
  }
}

// multiplicity[r] += 1 for every valid selected entry (exact float counts:
// the result does not depend on the order of the atomics).
__global__ void multiplicity_kernel(const int32_t* __restrict__ labels, const int32_t* __restrict__ index,
                                    int64_t rows, int64_t classes, int64_t selected, float* multiplicity) {
  for (int64_t e = grid_stride_begin(); e < selected; e += grid_stride_step()) {
    const int64_t r = selected_row(e, index, labels, rows, classes);
    if (r >= 0) atomicAdd(multiplicity + r, 1.0f);
  }
}

// One group per row of the gradient, computed in float and rounded once to
// T. multiplicity null (no index): each row with a valid label counts once.
template <int kLanes, typename T>
__global__ void loss_backward_kernel(LossKind kind, const T* __restrict__ x, const int32_t* __restrict__ labels,
                                     const float* __restrict__ multiplicity, const float* __restrict__ grad_loss,
                                     float inverse_count, int64_t rows, int64_t classes, T* __restrict__ grad) {
  const RowGroup<kLanes> lanes;
  const float upstream = *grad_loss * inverse_count;
  for (int64_t base = lanes.begin(); base < rows; base += lanes.step()) {
    const int64_t r = base + lanes.group;
    float count = 0.0f;
    if (r < rows) {
      count = multiplicity != nullptr ? multiplicity[r] : (selected_row(r, nullptr, labels, rows, classes) >= 0);
    }
    const int64_t width = count == 0.0f ? 0 : classes;
    const T* row = x + (width == 0 ? 0 : r) * classes;
    const float lse = kind == LossKind::CrossEntropy ? group_log_sum_exp<kLanes>(row, width, lanes.lane) : 0.0f;
    if (r >= rows) continue;
    T* out = grad + r * classes;
    if (width == 0) {
      for (int64_t c = lanes.lane; c < classes; c += kLanes) out[c] = store_as<T>(0.0f);
      continue;
    }
    const float weight = count * upstream;
    const int64_t label = labels[r];  // valid: the count is positive only for rows with a label in range
    for (int64_t c = lanes.lane; c < classes; c += kLanes) {
      const float probability_part = kind == LossKind::CrossEntropy ? weight * expf(load_float(row[c]) - lse) : 0.0f;
      out[c] = store_as<T>(c == label ? probability_part - weight : probability_part);
    }
  }
}

const int32_t* index_data(const Tensor& index) { return index.defined() ? index.data<int32_t>() : nullptr; }

// Calls launch(std::integral_constant<int, lanes>) with the fewest lanes (a
// power of two, 4 to 32) that leave at most eight classes to each.
template <typename Launch>
void with_row_lanes(int64_t classes, Launch&& launch) {
  if (classes <= 4 * 8) return launch(std::integral_constant<int, 4>{});
  if (classes <= 8 * 8) return launch(std::integral_constant<int, 8>{});
  if (classes <= 16 * 8) return launch(std::integral_constant<int, 16>{});
  return launch(std::integral_constant<int, 32>{});
}

}  // namespace

void loss_per_row(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                  Tensor& per_row) {
  const int64_t selected = per_row.numel();
  if (selected == 0) return;
  const Device device = input.device();
  cuda::DeviceGuard guard(device);
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    with_row_lanes(input.size(1), [&](auto lanes) {
      constexpr int kLanes = decltype(lanes)::value;
      loss_per_row_kernel<kLanes, T><<<warp_row_blocks(selected, device, 32 / kLanes), kWarpRowThreads, 0,
                                       cuda::stream(device)>>>(kind, input.data<T>(), labels.data<int32_t>(),
                                                               index_data(index), input.size(0), input.size(1),
                                                               selected, per_row.data<float>());
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("loss_per_row_kernel");
}

void loss_backward(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                   const Tensor& grad_loss, float inverse_count, Tensor& grad_input) {
  const int64_t rows = input.size(0);
  const int64_t classes = input.size(1);
  if (rows == 0 || classes == 0) return;
  const Device device = input.device();
  cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  // Without an index every row counts once if its label is valid: the kernel sees that itself.
  Tensor multiplicity;
  if (index.defined()) {
    multiplicity = Tensor::zeros({rows}, DType::Float32, device);
    if (index.numel() > 0) {
      const LaunchShape shape = elementwise_launch_shape(index.numel(), device);
      multiplicity_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
          labels.data<int32_t>(), index.data<int32_t>(), rows, classes, index.numel(), multiplicity.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("multiplicity_kernel");
    }
  }
  const float* counts = multiplicity.defined() ? multiplicity.data<float>() : nullptr;
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    with_row_lanes(classes, [&](auto lanes) {
      constexpr int kLanes = decltype(lanes)::value;
      loss_backward_kernel<kLanes, T><<<warp_row_blocks(rows, device, 32 / kLanes), kWarpRowThreads, 0, stream>>>(
          kind, input.data<T>(), labels.data<int32_t>(), counts, grad_loss.data<float>(), inverse_count, rows,
          classes, grad_input.data<T>());
    });
  });
  SGNN_CUDA_CHECK_LAUNCH("loss_backward_kernel");
}

}  // namespace sgnn::ops
