// Raw memory for tensors: host (64-byte aligned, optionally pinned) and device
// (CUDA's stream-ordered allocator on the device's default memory pool, set
// to keep freed memory so repeated epochs never reach cudaMalloc), with
// current and peak byte counters per device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device.hpp"

namespace sgnn::memory {

enum class HostKind : unsigned char { Pageable, Pinned };

// Returns `bytes` of memory on `device` (nullptr for 0 bytes). Device memory
// is ordered on the library's stream. Throws OutOfMemoryError with requested
// and free bytes when the allocation fails; nothing is leaked.
void* allocate(std::size_t bytes, Device device, HostKind host_kind = HostKind::Pageable);

// Releases memory from allocate() with the same arguments. Never throws.
void deallocate(void* pointer, std::size_t bytes, Device device,
                HostKind host_kind = HostKind::Pageable) noexcept;

// Copies `bytes` between any two devices. When either side is the host, the
// copy is complete when the function returns; device-to-device copies are
// ordered on the library's stream.
void copy(void* destination, Device destination_device, const void* source, Device source_device,
          std::size_t bytes);

// Sets `bytes` of memory to zero (asynchronously on the device).
void set_zero(void* destination, Device device, std::size_t bytes);

// Waits for all work queued on the library's stream of `device` (no-op on CPU).
void synchronize(Device device);

struct Usage {
  int64_t current_bytes = 0;  // bytes in live tensors now
  int64_t peak_bytes = 0;     // the most live at once since start or reset_peak
};
Usage usage(Device device);
void reset_peak(Device device);

}  // namespace sgnn::memory
