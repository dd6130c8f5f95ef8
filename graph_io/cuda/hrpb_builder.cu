#include <thrust/system/cuda/execution_policy.h>

#include "core/cuda_runtime.hpp"
#include "core/cuda/thrust_allocator.cuh"
#include "core/memory.hpp"
#include "graph_io/cuda/hrpb_builder_device.hpp"

namespace sgnn::graph_io::detail {

HrpbBuffers build_hrpb_buffers_on_device(const Csr& csr, const Tensor& values) {
  const cuda::DeviceGuard guard(csr.device());
  cuda::ThrustPoolAllocator allocator{csr.device()};
  return build_hrpb_buffers(thrust::cuda::par(allocator).on(cuda::stream(csr.device())), csr, values);
}

}  // namespace sgnn::graph_io::detail
