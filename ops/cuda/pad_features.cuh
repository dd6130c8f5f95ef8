// Zero-padding of the feature axis for the sparse kernels' 16-byte loads:
// widths that are not a multiple of the vector (GCN's and GAT's class
// counts: 41 on Reddit) leave a kernel to scalar loads, one load
// instruction per element. The padded SpMM (ops/cuda/spmm.cu) and SDDMM
// (ops/cuda/sddmm.cu) paths copy their dense operands into
// [rows, heads, padded] with zero columns and run the vector kernels there;
// whether that pays is timed per graph and width (ops/spmm_choice.hpp,
// ops/sddmm_choice.hpp).
#pragma once

#include <cstdint>
#include <utility>

#include "core/bfloat16.hpp"
#include "core/cuda/launch.cuh"
#include "core/tensor.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops::sparse_cuda {

template <typename T>
__global__ void pad_features_kernel(const T* __restrict__ source, int64_t features, int64_t padded, int64_t total,
                                    T* __restrict__ destination) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t group = i / padded;  // (row, head)
    const int64_t f = i - group * padded;
    destination[i] = f < features ? source[group * features + f] : store_as<T>(0.0f);
  }
}

template <typename T>
__global__ void unpad_features_kernel(const T* __restrict__ source, int64_t features, int64_t padded, int64_t total,
                                      T* __restrict__ destination) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t group = i / features;
    destination[i] = source[group * padded + (i - group * features)];
  }
}

using ::sgnn::ops::padded_width;

// [rows, heads, padded] of src [rows, heads · features] (T its dtype), the columns past `features` zero.
template <typename T>
Tensor padded_features(const Tensor& source, int64_t heads, int64_t features, int64_t padded) {
  const Device device = source.device();
  Tensor destination = Tensor::empty({source.size(0), heads, padded}, source.dtype(), device);
  if (destination.numel() == 0) return destination;
  const LaunchShape shape = elementwise_launch_shape(destination.numel(), device);
  pad_features_kernel<T><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      source.data<T>(), features, padded, destination.numel(), destination.data<T>());
  SGNN_CUDA_CHECK_LAUNCH("pad_features_kernel");
  return destination;
}

// B's rows as a kernel that reads them by 16-byte copies needs them (the
// HRPB kernels): B itself where its width is a multiple of the 16-byte
// vector and B is 16-byte aligned, else a zero-padded copy, made on B's
// stream and kept alive by `copy` until the launch that reads it is queued.
template <typename T>
struct VectorRows {
  Tensor copy;     // the padded copy, or undefined where B is used as it is
  const T* rows;   // [rows, width] elements
  int64_t width;   // elements per row: B's width, or it rounded up to the vector
};

template <typename T>
VectorRows<T> vector_rows(const Tensor& b, int64_t width) {
  constexpr int64_t kVector = 16 / static_cast<int64_t>(sizeof(T));
  if (width % kVector == 0 && aligned16(b.raw_data())) return {Tensor(), b.data<T>(), width};
  const int64_t padded = padded_width(width, kVector);
  Tensor copy = padded_features<T>(b, 1, width, padded);
  const T* rows = copy.data<T>();
  return {std::move(copy), rows, padded};
}

// destination [rows, heads · features] = the first `features` columns of each head of source [rows, heads, padded].
template <typename T>
void unpad_features(const Tensor& source, int64_t features, int64_t padded, Tensor& destination) {
  if (destination.numel() == 0) return;
  const Device device = destination.device();
  const LaunchShape shape = elementwise_launch_shape(destination.numel(), device);
  unpad_features_kernel<T><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      source.data<T>(), features, padded, destination.numel(), destination.data<T>());
  SGNN_CUDA_CHECK_LAUNCH("unpad_features_kernel");
}

}  // namespace sgnn::ops::sparse_cuda
