// Binary elementwise ops with broadcasting, and scale, on CUDA.
//
// Each operand is read at an index computed from the output index i. Almost
// every broadcast has each operand varying along one run of output axes and
// repeated over the axes before and after it (equal shapes, a bias [D] on
// [N, D], a column [N, 1] on [N, D], [N, H, 1] on [N, H, D], a scalar), so
// its index is (i / inner) % extent: no division when inner is 1, no modulo
// when the index never wraps, and 32-bit arithmetic when the output has
// fewer than 2^31 elements (64-bit division costs several times more). Equal
// shapes then do no index arithmetic at all, and a suffix bias one 32-bit
// modulo. Other broadcasts ([N, 1, D] on [N, H, D]) walk the layout's axes.
#include <limits>

#include "core/cuda/launch.cuh"
#include "ops/cuda/elementwise_map.cuh"
#include "ops/elementwise_math.hpp"

namespace sgnn::ops {

namespace {

// Where output element i reads one operand: (i / inner) % extent.
struct RunIndex {
  int64_t inner = 1;
  int64_t extent = 1;
  bool divides = false;
  bool wraps = false;
  bool narrow = false;  // i, inner and extent fit 32 bits
  bool single = false;  // one element, repeated everywhere

  __device__ __forceinline__ int64_t operator()(int64_t i) const {
    if (single) return 0;
    if (narrow) {
      auto j = static_cast<uint32_t>(i);
      if (divides) j /= static_cast<uint32_t>(inner);
      if (wraps) j %= static_cast<uint32_t>(extent);
      return j;
    }
    if (divides) i /= inner;
    if (wraps) i %= extent;
    return i;
  }
};

// The run form of operand j, when the axes along which it varies are adjacent.
bool run_index(const BroadcastLayout& layout, int j, RunIndex& index) {
  int first = -1, last = -1;
  for (int k = 0; k < layout.axes; ++k) {
    if (layout.strides[j][k] == 0) continue;
    if (first < 0) first = k;
    if (last >= 0 && last != k - 1) return false;  // a repeated axis between two varying ones
    last = k;
  }
  index = RunIndex{};
  if (first < 0) {
    index.single = true;
  } else {
    for (int k = last + 1; k < layout.axes; ++k) index.inner *= layout.extents[k];
    for (int k = first; k <= last; ++k) index.extent *= layout.extents[k];
    index.divides = index.inner != 1;
    index.wraps = first != 0;  // axes outside the run before it: the index comes round again
  }
  index.narrow = layout.numel <= std::numeric_limits<int32_t>::max();
  return true;
}

// Where output element i reads operand j, by the layout's axes.
__device__ __forceinline__ int64_t strided_index(const BroadcastLayout& layout, int j, int64_t i) {
  int64_t offset = 0;
  for (int k = layout.axes - 1; k >= 0; --k) {
    const int64_t extent = layout.extents[k];
    offset += (i % extent) * layout.strides[j][k];
    i /= extent;
  }
  return offset;
}

// f(i, index of a, index of b) for every output element.
template <typename F>
__global__ void run_kernel(F f, int64_t n, RunIndex a_index, RunIndex b_index) {
  for (int64_t i = grid_stride_begin(); i < n; i += grid_stride_step()) f(i, a_index(i), b_index(i));
}

template <typename F>
__global__ void strided_kernel(F f, BroadcastLayout layout) {
  for (int64_t i = grid_stride_begin(); i < layout.numel; i += grid_stride_step()) {
    f(i, strided_index(layout, 0, i), strided_index(layout, 1, i));
  }
}

template <typename F>
void launch_broadcast(const BroadcastLayout& layout, Device device, F f) {
  const LaunchShape shape = elementwise_launch_shape(layout.numel, device);
  const cudaStream_t stream = cuda::stream(device);
  RunIndex a_index, b_index;
  if (run_index(layout, 0, a_index) && run_index(layout, 1, b_index)) {
    run_kernel<<<shape.blocks, shape.threads, 0, stream>>>(f, layout.numel, a_index, b_index);
    SGNN_CUDA_CHECK_LAUNCH("binary run_kernel");
  } else {
    strided_kernel<<<shape.blocks, shape.threads, 0, stream>>>(f, layout);
    SGNN_CUDA_CHECK_LAUNCH("binary strided_kernel");
  }
}

// `out` may alias `a` (documented), so neither is __restrict__.
template <typename A, typename B, typename Out>
struct ForwardElement {
  BinaryOp op;
  const A* a;
  const B* b;
  Out* out;
  __device__ __forceinline__ void operator()(int64_t i, int64_t j, int64_t k) const {
    out[i] = store_as<Out>(binary_value(op, load_float(a[j]), load_float(b[k])));
  }
};

template <typename A, typename B, typename Out>
struct BackwardElement {
  BinaryOp op;
  int operand;
  const A* grad;  // the output's gradient has the output's dtype, a's
  const A* a;
  const B* b;
  Out* out;
  __device__ __forceinline__ void operator()(int64_t i, int64_t j, int64_t k) const {
    out[i] = store_as<Out>(binary_gradient(op, operand, load_float(a[j]), load_float(b[k]), load_float(grad[i])));
  }
};

}  // namespace

void binary_forward(Cuda, BinaryOp op, const Tensor& a, const Tensor& b, const BroadcastLayout& layout, Tensor& out) {
  if (layout.numel == 0) return;
  cuda::DeviceGuard guard(a.device());
  visit_operand_types(a, b, out, [&](auto a_element, auto b_element, auto out_element) {
    using A = decltype(a_element);
    using B = decltype(b_element);
    using Out = decltype(out_element);
    launch_broadcast(layout, a.device(), ForwardElement<A, B, Out>{op, a.data<A>(), b.data<B>(), out.data<Out>()});
  });
}

void binary_backward(Cuda, BinaryOp op, int operand, const Tensor& grad, const Tensor& a, const Tensor& b,
                     const BroadcastLayout& layout, Tensor& out) {
  if (layout.numel == 0) return;
  cuda::DeviceGuard guard(a.device());
  visit_operand_types(a, b, out, [&](auto a_element, auto b_element, auto out_element) {
    using A = decltype(a_element);
    using B = decltype(b_element);
    using Out = decltype(out_element);
    launch_broadcast(layout, a.device(),
                     BackwardElement<A, B, Out>{op, operand, grad.data<A>(), a.data<A>(), b.data<B>(), out.data<Out>()});
  });
}

void scale_forward(Cuda, const Tensor& x, float factor, Tensor& out) {
  launch_map(x, out, [=] __device__(float value) { return value * factor; });
}

}  // namespace sgnn::ops
