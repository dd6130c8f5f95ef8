// prepare_adjacency on a CUDA device: the csr_builder templates with Thrust's
// CUDA policy, queued on the library's stream, temporaries from its pool.
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include <cstddef>

#include "core/cuda_runtime.hpp"
#include "core/cuda/thrust_allocator.cuh"
#include "core/memory.hpp"
#include "graph_io/csr_builder.hpp"
#include "graph_io/prepare_backend.hpp"

namespace sgnn::graph_io {

Adjacency prepare_adjacency_cuda(const EdgeList& edges, const PrepareOptions& options, Tensor* entry_edges) {
  const Device device = options.device;
  cuda::DeviceGuard guard(device);
  cuda::ThrustPoolAllocator allocator{device};
  const auto policy = thrust::cuda::par_nosync(allocator).on(cuda::stream(device));
  try {
    csr_builder::check_edges(policy, edges);
    Adjacency adjacency = csr_builder::build(policy, edges, options, device, entry_edges);
    SGNN_CUDA_CHECK(cudaGetLastError());
    return adjacency;
  } catch (const thrust::system_error& error) {
    throw CudaError(detail::concat("prepare_adjacency on ", device.str(), ": Thrust failed: ", error.what()));
  }
}

Tensor entry_features_cuda(const Tensor& features, const Tensor& entry_edges) {
  const Device device = entry_edges.device();
  cuda::DeviceGuard guard(device);
  cuda::ThrustPoolAllocator allocator{device};
  const auto policy = thrust::cuda::par_nosync(allocator).on(cuda::stream(device));
  try {
    Tensor out = csr_builder::entry_features(policy, features, entry_edges, device);
    SGNN_CUDA_CHECK(cudaGetLastError());
    return out;
  } catch (const thrust::system_error& error) {
    throw CudaError(detail::concat("edge_features_in_entry_order on ", device.str(), ": Thrust failed: ", error.what()));
  }
}

}  // namespace sgnn::graph_io
