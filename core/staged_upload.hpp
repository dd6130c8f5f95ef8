// Host -> device copies of large pageable or mapped host buffers through a
// few pinned staging buffers: host threads copy chunk k+1 of the source into
// one buffer while the DMA engine moves chunk k from another, so a copy out
// of a mapped file runs near the link's rate instead of the driver's
// pageable path (which stages through its own small buffer, one thread).
//
// Several copies given together share the pipeline (their chunks follow each
// other), so the host side of one overlaps the transfer of the other; calls
// from several threads at once each get their own buffers and overlap too.
// `observe`, when set, sees every piece of every copy as staged (the same
// bytes the device receives), from several threads at once and in any order:
// e.g. to checksum a file's payload on its way to the device without a pass
// of its own. It must not throw. Pieces are kStagedPieceBytes long (the last
// piece of a copy may be shorter) and start at multiples of it.
//
// Destinations on the CPU get a plain parallel memcpy (observed the same way).
// Returns when every copy is complete. Throws CudaError on a CUDA failure.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "core/device.hpp"

namespace sgnn::memory {

inline constexpr std::size_t kStagedPieceBytes = std::size_t{1} << 20;

struct HostToDeviceCopy {
  void* destination = nullptr;       // on the target device
  const void* source = nullptr;      // host memory (pageable, pinned or mapped)
  std::size_t bytes = 0;
};

using StagedPieceObserver =
    std::function<void(std::size_t copy, std::size_t offset, const void* data, std::size_t bytes)>;

void upload_staged(std::span<const HostToDeviceCopy> copies, Device device, const StagedPieceObserver& observe = {});

}  // namespace sgnn::memory
