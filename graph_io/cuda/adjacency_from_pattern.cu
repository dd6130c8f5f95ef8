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

}  // namespace sgnn::graph_io
