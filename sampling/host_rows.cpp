#include "sampling/host_rows.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sgnn::sampling {

namespace {

// Rows ahead of the one being copied whose lines are requested: enough to
// cover a miss's latency at a row's copy time (H200 host, 16 threads, 256-byte
// rows of a 28 GB table: 23.4 GB/s with it against 18.6 without; a probe, see
// docs/sampling.md).
constexpr int64_t kPrefetchRows = 8;
constexpr int64_t kLine = 64;
// Rows are handed to threads in grabs of about this many bytes, not in one
// equal range each: on the H200's virtual machine one descheduled thread held
// the whole copy back (16 threads, 256-byte rows of a 28 GB table: 25.3 GB/s
// in equal ranges, 43.0 in grabs of 128 KiB; docs/sampling.md).
constexpr int64_t kGrabBytes = int64_t{128} << 10;

enum class Store { copy, stream16, stream32 };

#if defined(__x86_64__)
inline void stream_row_16(const char* from, char* to, int64_t row_bytes) {
  for (int64_t b = 0; b < row_bytes; b += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + b), _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + b)));
  }
}

// Compiled for AVX2 on its own (the library is not), so it is called, not
// inlined, and only where the CPU has AVX2: a call per row of a few hundred
// bytes.
__attribute__((target("avx2"))) void stream_row_32(const char* from, char* to, int64_t row_bytes) {
  for (int64_t b = 0; b < row_bytes; b += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to + b),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + b)));
  }
}
#endif

// Rows k in [begin, end) of the ids into consecutive rows from `to_begin`.
template <Store kStore>
void copy_range(const char* rows, int64_t row_bytes, const int32_t* ids, int64_t count, int64_t begin, int64_t end,
                char* to_begin) {
  for (int64_t k = begin; k < end; ++k) {
    if (k + kPrefetchRows < count) {
      const char* ahead = rows + static_cast<int64_t>(ids[k + kPrefetchRows]) * row_bytes;
      for (int64_t line = 0; line < row_bytes; line += kLine) __builtin_prefetch(ahead + line);
    }
    const char* from = rows + static_cast<int64_t>(ids[k]) * row_bytes;
    char* to = to_begin + (k - begin) * row_bytes;
#if defined(__x86_64__)
    if constexpr (kStore == Store::stream32) {
      stream_row_32(from, to, row_bytes);
    } else if constexpr (kStore == Store::stream16) {
      stream_row_16(from, to, row_bytes);
    } else {
      std::memcpy(to, from, static_cast<std::size_t>(row_bytes));
    }
#else
    std::memcpy(to, from, static_cast<std::size_t>(row_bytes));
#endif
  }
#if defined(__x86_64__)
  // Non-temporal stores are weakly ordered: drained before the grab counts
  // as done, so a chunk's rows are in memory when its DMA is issued.
  if constexpr (kStore != Store::copy) _mm_sfence();
#endif
}

// What a chunked copy's threads share: each chunk's grabs still to copy,
// whether it has been reported and whether its consumer has taken it (for
// the pacing), and the first error.
class ChunkBoard {
 public:
  ChunkBoard(const RowChunks& chunks, int64_t num_chunks, int64_t chunk_rows, int64_t grab, int64_t count)
      : chunks_(chunks),
        grabs_left_(static_cast<std::size_t>(num_chunks)),
        reported_(static_cast<std::size_t>(num_chunks)),
        landed_(static_cast<std::size_t>(num_chunks)) {
    for (int64_t c = 0; c < num_chunks; ++c) {
      const int64_t rows_in_chunk = std::min(chunk_rows, count - c * chunk_rows);
      grabs_left_[static_cast<std::size_t>(c)].store((rows_in_chunk + grab - 1) / grab, std::memory_order_relaxed);
      reported_[static_cast<std::size_t>(c)].store(false, std::memory_order_relaxed);
      landed_[static_cast<std::size_t>(c)].store(false, std::memory_order_relaxed);
    }
  }

  // Before a grab of `chunk`: waits, with pacing, for chunk - ahead to land.
  void wait_for_room(int64_t chunk) {
    if (chunks_.ahead <= 0 || !chunks_.landed || chunk < chunks_.ahead) return;
    const auto waited = static_cast<std::size_t>(chunk - chunks_.ahead);
    while (!landed_[waited].load(std::memory_order_acquire) && !failed_.load(std::memory_order_acquire)) {
      if (reported_[waited].load(std::memory_order_acquire)) {
        try {
          if (chunks_.landed(static_cast<int64_t>(waited))) {
            landed_[waited].store(true, std::memory_order_release);
            return;
          }
        } catch (...) {
          fail(std::current_exception());
          return;
        }
      }
      std::this_thread::yield();
    }
  }

  // After a grab of `chunk`: the thread that copied its last rows reports it.
  void grab_done(int64_t chunk, int64_t first_row, int64_t rows) {
    if (grabs_left_[static_cast<std::size_t>(chunk)].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (!chunks_.on_chunk || failed_.load(std::memory_order_acquire)) return;
    try {
      chunks_.on_chunk(first_row, rows);
      reported_[static_cast<std::size_t>(chunk)].store(true, std::memory_order_release);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  void rethrow() const {
    if (first_error_ != nullptr) std::rethrow_exception(first_error_);
  }

 private:
  void fail(std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(error_mutex_);
    if (first_error_ == nullptr) first_error_ = std::move(error);
    failed_.store(true, std::memory_order_release);
  }

  const RowChunks& chunks_;
  std::vector<std::atomic<int64_t>> grabs_left_;
  std::vector<std::atomic<bool>> reported_, landed_;
  std::atomic<bool> failed_{false};
  std::exception_ptr first_error_;
  std::mutex error_mutex_;
};

// One parallel region for the whole copy; each thread takes the next grab
// (an atomic counter) until none is left. Grabs never straddle a chunk, and
// the thread that finishes a chunk's last grab reports it. A region per
// chunk, as before, made every thread wait at each chunk's end for the
// slowest one, which on the H200's virtual machine is often descheduled:
// 256-byte rows of a 28 GB table, 1M sorted ids, 8 MiB DMA chunks behind
// the copy, medians of 9 in four runs: 29.0-43.7 GB/s a region per chunk,
// 44.4-45.9 in one region (a probe; docs/sampling.md). Grabs are taken in
// order, so a thread pacing on an earlier chunk waits only for grabs
// already taken, each waiting (if at all) on a chunk earlier still.
template <Store kStore>
void copy_rows(const char* rows, int64_t row_bytes, const int32_t* ids, int64_t count, char* target,
               const RowChunks& chunks) {
  const int64_t chunk_rows = chunks.on_chunk ? chunks.rows : count;
  const int64_t grab = std::min(std::max<int64_t>(1, kGrabBytes / row_bytes), chunk_rows);
  const int64_t grabs_per_chunk = (chunk_rows + grab - 1) / grab;
  const int64_t num_chunks = (count + chunk_rows - 1) / chunk_rows;
  ChunkBoard board(chunks, num_chunks, chunk_rows, grab, count);
  std::atomic<int64_t> next_grab{0};
  const int64_t total_grabs = num_chunks * grabs_per_chunk;
#pragma omp parallel
  {
    for (int64_t g = next_grab.fetch_add(1, std::memory_order_relaxed); g < total_grabs;
         g = next_grab.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t chunk = g / grabs_per_chunk;
      const int64_t chunk_begin = chunk * chunk_rows;
      const int64_t chunk_end = std::min(count, chunk_begin + chunk_rows);
      const int64_t begin = chunk_begin + (g % grabs_per_chunk) * grab;
      if (begin >= chunk_end) continue;  // the short last chunk has fewer grabs
      board.wait_for_room(chunk);
      // In a ring, chunk c is written to slot c % ring (pacing freed it: chunk c - ring has landed).
      const int64_t out_row = chunks.ring > 0 ? (chunk % chunks.ring) * chunk_rows + (begin - chunk_begin) : begin;
      copy_range<kStore>(rows, row_bytes, ids, count, begin, std::min(chunk_end, begin + grab),
                         target + out_row * row_bytes);
      board.grab_done(chunk, chunk_begin, chunk_end - chunk_begin);
    }
  }
  board.rethrow();
}

bool aligned(const void* pointer, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

}  // namespace

void copy_rows_by_threads(const void* table, int64_t row_bytes, const int32_t* ids, int64_t count, void* out,
                          RowWrites writes, const RowChunks& chunks) {
  SGNN_CHECK(!chunks.on_chunk || chunks.rows > 0, "copy_rows_by_threads: chunks of ", chunks.rows, " rows");
  SGNN_CHECK(chunks.ahead >= 0, "copy_rows_by_threads: pacing ", chunks.ahead, " chunks ahead (at least 0)");
  // Pacing nearer than the ring is not enough: chunks land in the order their
  // copies were issued, not in chunk order, so chunk c - ahead landing says
  // nothing of chunk c - ring, whose slot chunk c takes.
  SGNN_CHECK(chunks.ring == 0 || (chunks.on_chunk && chunks.landed && chunks.ahead == chunks.ring),
             "copy_rows_by_threads: a ring of ", chunks.ring, " chunks needs on_chunk, landed and pacing of exactly ",
             chunks.ring, " chunks ahead (given ", chunks.ahead, (chunks.landed ? "" : ", no landed"), ")");
  if (count <= 0) return;
  const auto* rows = static_cast<const char*>(table);
  auto* target = static_cast<char*>(out);
#if defined(__x86_64__)
  if (writes == RowWrites::streaming && row_bytes % 32 == 0 && aligned(out, 32) && __builtin_cpu_supports("avx2")) {
    copy_rows<Store::stream32>(rows, row_bytes, ids, count, target, chunks);
    return;
  }
  if (writes == RowWrites::streaming && row_bytes % 16 == 0 && aligned(out, 16)) {
    copy_rows<Store::stream16>(rows, row_bytes, ids, count, target, chunks);
    return;
  }
#endif
  copy_rows<Store::copy>(rows, row_bytes, ids, count, target, chunks);
}

}  // namespace sgnn::sampling
