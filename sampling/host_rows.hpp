// copy_rows_by_threads: out row k = table row ids[k], k < count, copied by
// the host's threads (OpenMP), with software prefetch a few rows ahead so
// that each thread keeps several rows' cache misses in flight: random rows
// of a host table many times larger than the caches are latency-bound, not
// bandwidth-bound. The CPU half of a host-table gather on CUDA
// (sampling/gather.hpp's HostGatherSplit), and the CPU backend's gather of
// rows kept as stored. `table` host memory of rows of
// `row_bytes`; ids in range (not checked); `out` count · row_bytes bytes.
#pragma once

#include <cstdint>

namespace sgnn::sampling {

void copy_rows_by_threads(const void* table, int64_t row_bytes, const int32_t* ids, int64_t count, void* out);

}  // namespace sgnn::sampling
