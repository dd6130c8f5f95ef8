#include "sampling/host_rows.hpp"

#include <cstring>

namespace sgnn::sampling {

namespace {

// Rows ahead of the one being copied whose lines are requested: enough to
// cover a miss's latency at a row's copy time (H200 host, 16 threads, 256-byte
// rows of a 28 GB table: 23.4 GB/s with it against 18.6 without; a probe, see
// docs/sampling.md).
constexpr int64_t kPrefetchRows = 8;
constexpr int64_t kLine = 64;

}  // namespace

void copy_rows_by_threads(const void* table, int64_t row_bytes, const int32_t* ids, int64_t count, void* out) {
  const auto* rows = static_cast<const char*>(table);
  auto* target = static_cast<char*>(out);
#pragma omp parallel
  {
    // A contiguous range per thread, so its prefetches are of its own rows.
#pragma omp for schedule(static)
    for (int64_t k = 0; k < count; ++k) {
      if (k + kPrefetchRows < count) {
        const char* ahead = rows + static_cast<int64_t>(ids[k + kPrefetchRows]) * row_bytes;
        for (int64_t line = 0; line < row_bytes; line += kLine) __builtin_prefetch(ahead + line);
      }
      std::memcpy(target + k * row_bytes, rows + static_cast<int64_t>(ids[k]) * row_bytes,
                  static_cast<std::size_t>(row_bytes));
    }
  }
}

}  // namespace sgnn::sampling
