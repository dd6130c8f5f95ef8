// Thrust's temporary storage (sort and scan buffers) from the library's
// stream-ordered pool: pass to thrust::cuda::par(allocator).on(stream) so a
// device algorithm never calls cudaMalloc.
#pragma once

#include <cstddef>

#include "core/memory.hpp"

namespace sgnn::cuda {

struct ThrustPoolAllocator {
  using value_type = char;
  Device device;
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(memory::allocate(static_cast<std::size_t>(bytes), device));
  }
  void deallocate(char* pointer, std::size_t bytes) { memory::deallocate(pointer, bytes, device); }
};

}  // namespace sgnn::cuda
