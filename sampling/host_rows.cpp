#include "sampling/host_rows.hpp"

#include <algorithm>
#include <cstring>

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

template <Store kStore>
void copy_rows(const char* rows, int64_t row_bytes, const int32_t* ids, int64_t count, char* target) {
  const int64_t grab = std::max<int64_t>(1, kGrabBytes / row_bytes);
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, grab)
    for (int64_t k = 0; k < count; ++k) {
      if (k + kPrefetchRows < count) {
        const char* ahead = rows + static_cast<int64_t>(ids[k + kPrefetchRows]) * row_bytes;
        for (int64_t line = 0; line < row_bytes; line += kLine) __builtin_prefetch(ahead + line);
      }
      const char* from = rows + static_cast<int64_t>(ids[k]) * row_bytes;
      char* to = target + k * row_bytes;
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
    // Non-temporal stores are weakly ordered: each thread drains its own
    // before the region ends, so the rows are in memory when DMA reads them.
    if constexpr (kStore != Store::copy) _mm_sfence();
#endif
  }
}

bool aligned(const void* pointer, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

}  // namespace

void copy_rows_by_threads(const void* table, int64_t row_bytes, const int32_t* ids, int64_t count, void* out,
                          RowWrites writes) {
  const auto* rows = static_cast<const char*>(table);
  auto* target = static_cast<char*>(out);
#if defined(__x86_64__)
  if (writes == RowWrites::streaming && row_bytes % 32 == 0 && aligned(out, 32) && __builtin_cpu_supports("avx2")) {
    copy_rows<Store::stream32>(rows, row_bytes, ids, count, target);
    return;
  }
  if (writes == RowWrites::streaming && row_bytes % 16 == 0 && aligned(out, 16)) {
    copy_rows<Store::stream16>(rows, row_bytes, ids, count, target);
    return;
  }
#endif
  copy_rows<Store::copy>(rows, row_bytes, ids, count, target);
}

}  // namespace sgnn::sampling
