#include <thrust/system/cuda/execution_policy.h>

#include "core/cuda_runtime.hpp"
#include "core/memory.hpp"
#include "graph_io/cuda/hrpb_builder_device.hpp"

namespace sgnn::graph_io::detail {

namespace {

// Thrust's temporary storage from the library's stream-ordered pool.
struct PoolAllocator {
  using value_type = char;
  Device device;
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(memory::allocate(static_cast<std::size_t>(bytes), device));
  }
  void deallocate(char* pointer, std::size_t bytes) { memory::deallocate(pointer, bytes, device); }
};

}  // namespace

HrpbBuffers build_hrpb_buffers_on_device(const Csr& csr, const Tensor& values) {
  const cuda::DeviceGuard guard(csr.device());
  PoolAllocator allocator{csr.device()};
  return build_hrpb_buffers(thrust::cuda::par(allocator).on(cuda::stream(csr.device())), csr, values);
}

}  // namespace sgnn::graph_io::detail
