#include "core/staged_upload.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::memory {

namespace {

// A piece: the unit a thread copies (and the observer sees).
struct Piece {
  std::size_t copy;
  std::size_t offset;
  std::size_t bytes;
};

std::vector<Piece> pieces_of(std::span<const HostToDeviceCopy> copies) {
  std::vector<Piece> pieces;
  for (std::size_t c = 0; c < copies.size(); ++c) {
    for (std::size_t offset = 0; offset < copies[c].bytes; offset += kStagedPieceBytes) {
      pieces.push_back({c, offset, std::min(kStagedPieceBytes, copies[c].bytes - offset)});
    }
  }
  return pieces;
}

const char* source_of(std::span<const HostToDeviceCopy> copies, const Piece& piece) {
  return static_cast<const char*>(copies[piece.copy].source) + piece.offset;
}

void copy_on_host(std::span<const HostToDeviceCopy> copies, const StagedPieceObserver& observe) {
  const std::vector<Piece> pieces = pieces_of(copies);
  const auto count = static_cast<int64_t>(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (int64_t p = 0; p < count; ++p) {
    const Piece& piece = pieces[static_cast<std::size_t>(p)];
    char* destination = static_cast<char*>(copies[piece.copy].destination) + piece.offset;
    std::memcpy(destination, source_of(copies, piece), piece.bytes);
    if (observe) observe(piece.copy, piece.offset, destination, piece.bytes);
  }
}

#ifdef SGNN_WITH_CUDA
// 16 pieces per chunk: enough for every thread of a 16-core host to copy one
// piece per chunk; four buffers keep the DMA engine fed while threads fill
// the next one. 64 MiB of pinned memory, allocated once per process.
constexpr std::size_t kPiecesPerChunk = 16;
constexpr std::size_t kChunkBytes = kPiecesPerChunk * kStagedPieceBytes;
constexpr int kBuffers = 4;

struct StagingBuffers {
  std::array<void*, kBuffers> host{};
};

// Sets of buffers, one per upload running at once (uploads from several
// threads overlap), kept for the process: pinned allocations cost ~10 ms each.
class StagingPool {
 public:
  // A free set, allocated when none is; nullptr when pinned memory is not available.
  StagingBuffers* acquire() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        StagingBuffers* buffers = free_.back();
        free_.pop_back();
        return buffers;
      }
    }
    auto buffers = std::make_unique<StagingBuffers>();
    for (void*& buffer : buffers->host) {
      if (cudaMallocHost(&buffer, kChunkBytes) != cudaSuccess) {
        (void)cudaGetLastError();
        for (void* allocated : buffers->host) {
          if (allocated != nullptr) (void)cudaFreeHost(allocated);
        }
        return nullptr;  // no pinned memory: the driver's pageable path still works
      }
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    owned_.push_back(std::move(buffers));
    return owned_.back().get();
  }
  void release(StagingBuffers* buffers) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(buffers);
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<StagingBuffers>> owned_;  // never freed: pinned memory is released at exit
  std::vector<StagingBuffers*> free_;
};

StagingPool& staging_pool() {
  static StagingPool* pool = new StagingPool;  // outlives every static destructor that might still upload
  return *pool;
}

// The pieces grouped into chunks that never span two copies.
std::vector<std::pair<std::size_t, std::size_t>> chunks_of(const std::vector<Piece>& pieces) {
  std::vector<std::pair<std::size_t, std::size_t>> chunks;  // [first piece, last piece)
  for (std::size_t p = 0; p < pieces.size();) {
    std::size_t end = p + 1;
    while (end < pieces.size() && end - p < kPiecesPerChunk && pieces[end].copy == pieces[p].copy) ++end;
    chunks.emplace_back(p, end);
    p = end;
  }
  return chunks;
}

void upload_through_buffers(std::span<const HostToDeviceCopy> copies, Device device, const StagedPieceObserver& observe,
                            StagingBuffers& buffers) {
  const cudaStream_t stream = cuda::stream(device);
  std::array<cudaEvent_t, kBuffers> drained{};
  for (cudaEvent_t& event : drained) SGNN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const std::vector<Piece> pieces = pieces_of(copies);
  const auto chunks = chunks_of(pieces);
  try {
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      const std::size_t slot = c % kBuffers;
      char* buffer = static_cast<char*>(buffers.host[slot]);
      if (c >= kBuffers) SGNN_CUDA_CHECK(cudaEventSynchronize(drained[slot]));  // its last transfer is done
      const auto [first, last] = chunks[c];
      const std::size_t chunk_offset = pieces[first].offset;
      const auto count = static_cast<int64_t>(last - first);
#pragma omp parallel for schedule(static, 1) if (count > 1)
      for (int64_t p = 0; p < count; ++p) {
        const Piece& piece = pieces[first + static_cast<std::size_t>(p)];
        char* staged = buffer + (piece.offset - chunk_offset);
        std::memcpy(staged, source_of(copies, piece), piece.bytes);
        if (observe) observe(piece.copy, piece.offset, staged, piece.bytes);
      }
      const std::size_t chunk_bytes = pieces[last - 1].offset + pieces[last - 1].bytes - chunk_offset;
      char* destination = static_cast<char*>(copies[pieces[first].copy].destination) + chunk_offset;
      SGNN_CUDA_CHECK(cudaMemcpyAsync(destination, buffer, chunk_bytes, cudaMemcpyHostToDevice, stream));
      SGNN_CUDA_CHECK(cudaEventRecord(drained[slot], stream));
    }
    SGNN_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    (void)cudaStreamSynchronize(stream);  // the buffers must be idle before anyone reuses them
    for (cudaEvent_t event : drained) (void)cudaEventDestroy(event);
    throw;
  }
  for (cudaEvent_t event : drained) SGNN_CUDA_CHECK(cudaEventDestroy(event));
}
#endif

}  // namespace

void upload_staged(std::span<const HostToDeviceCopy> copies, Device device, const StagedPieceObserver& observe) {
  if (device.is_cpu()) {
    copy_on_host(copies, observe);
    return;
  }
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  if (StagingBuffers* buffers = staging_pool().acquire()) {
    try {
      upload_through_buffers(copies, device, observe, *buffers);
    } catch (...) {
      staging_pool().release(buffers);
      throw;
    }
    staging_pool().release(buffers);
    return;
  }
  // No pinned memory: the driver's pageable copies, observed from the source.
  for (std::size_t c = 0; c < copies.size(); ++c) {
    SGNN_CUDA_CHECK(cudaMemcpy(copies[c].destination, copies[c].source, copies[c].bytes, cudaMemcpyHostToDevice));
  }
  if (observe) {
    for (const Piece& piece : pieces_of(copies)) observe(piece.copy, piece.offset, source_of(copies, piece), piece.bytes);
  }
#else
  (void)observe;
  require_available(device);
#endif
}

}  // namespace sgnn::memory
