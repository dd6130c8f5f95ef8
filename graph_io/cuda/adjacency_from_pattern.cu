// adjacency_from_pattern on a CUDA device: csr_builder::assemble_pattern with
// Thrust's CUDA policy, queued on the library's stream, temporaries from its pool.
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include "core/cuda_runtime.hpp"
#include "core/cuda/thrust_allocator.cuh"
#include "core/memory.hpp"
#include "graph_io/adjacency_from_pattern_backend.hpp"
#include "graph_io/csr_builder.hpp"

namespace sgnn::graph_io {

Adjacency adjacency_from_pattern_cuda(const Csr& pattern, const Tensor& weights, const PrepareOptions& options) {
  const Device device = options.device;
  cuda::DeviceGuard guard(device);
  cuda::ThrustPoolAllocator allocator{device};
  const auto policy = thrust::cuda::par_nosync(allocator).on(cuda::stream(device));
  try {
    Adjacency adjacency =
        csr_offset_dtype(pattern.nnz) == DType::Int32
            ? csr_builder::assemble_pattern<int32_t>(policy, pattern, weights, options, device)
            : csr_builder::assemble_pattern<int64_t>(policy, pattern, weights, options, device);
    SGNN_CUDA_CHECK(cudaGetLastError());
    return adjacency;
  } catch (const thrust::system_error& error) {
    throw CudaError(detail::concat("adjacency_from_pattern on ", device.str(), ": Thrust failed: ", error.what()));
  }
}

namespace {

// One thread per row: offsets that do not decrease and end in range, then
// the row's columns increasing and in range. A violation sets *bad.
template <typename Offset>
__global__ void check_rows(const Offset* indptr, const int32_t* indices, int64_t rows, int64_t nnz, int* bad) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int64_t begin = indptr[row];
  const int64_t end = indptr[row + 1];
  if ((row == 0 && begin != 0) || (row == rows - 1 && end != nnz) || begin > end || begin < 0 || end > nnz) {
    atomicOr(bad, 1);
    return;
  }
  int64_t previous = -1;
  for (int64_t k = begin; k < end; ++k) {
    const int64_t column = indices[k];
    if (column <= previous || column >= rows) {
      atomicOr(bad, 1);
      return;
    }
    previous = column;
  }
}

template <typename Offset>
bool sorted_pattern(const Csr& pattern) {
  const Device device = pattern.indptr.device();
  const cudaStream_t stream = cuda::stream(device);
  if (pattern.num_rows == 0) return pattern.nnz == 0;
  Tensor bad = Tensor::zeros({1}, DType::Int32, device);
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>((pattern.num_rows + kThreads - 1) / kThreads);
  check_rows<Offset><<<blocks, kThreads, 0, stream>>>(pattern.indptr.data<Offset>(), pattern.indices.data<int32_t>(),
                                                      pattern.num_rows, pattern.nnz, bad.data<int32_t>());
  SGNN_CUDA_CHECK_LAUNCH("check_rows");
  return bad.item() == 0;
}

}  // namespace

Tensor scaled_values_cuda(const Csr& csr, const double* scale) {
  const Device device = csr.device();
  cuda::DeviceGuard guard(device);
  cuda::ThrustPoolAllocator allocator{device};
  const auto policy = thrust::cuda::par_nosync(allocator).on(cuda::stream(device));
  try {
    Tensor values = csr.indptr.dtype() == DType::Int32 ? csr_builder::scaled_values<int32_t>(policy, csr, scale, device)
                                                       : csr_builder::scaled_values<int64_t>(policy, csr, scale, device);
    SGNN_CUDA_CHECK(cudaGetLastError());
    return values;
  } catch (const thrust::system_error& error) {
    throw CudaError(detail::concat("stored_weights on ", device.str(), ": Thrust failed: ", error.what()));
  }
}

bool is_sorted_pattern_cuda(const Csr& pattern) {
  cuda::DeviceGuard guard(pattern.indptr.device());
  return pattern.indptr.dtype() == DType::Int64 ? sorted_pattern<int64_t>(pattern) : sorted_pattern<int32_t>(pattern);
}

}  // namespace sgnn::graph_io
