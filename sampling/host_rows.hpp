// copy_rows_by_threads: out row k = table row ids[k], k < count, copied by
// the host's threads (OpenMP), with software prefetch a few rows ahead so
// that each thread keeps several rows' cache misses in flight: random rows
// of a host table many times larger than the caches are latency-bound, not
// bandwidth-bound. The CPU half of a host-table gather on CUDA
// (sampling/gather.hpp's HostGatherSplit), and the CPU backend's gather of
// rows kept as stored. `table` host memory of rows of `row_bytes`; ids in
// range (not checked); `out` count · row_bytes bytes.
//
// RowWrites::streaming writes `out` with non-temporal stores, for a buffer
// the CPU does not read next (staging that DMA carries to the device): no
// line of it is read for ownership or kept in the caches. It applies where
// `out` is 16-byte aligned and rows are whole 16-byte units on x86-64, and
// is an ordinary copy elsewhere; writes are complete and visible to other
// agents (DMA) when the call returns. RowWrites::cached is an ordinary copy.
//
// RowChunks: the rows in chunks of `rows` (the last may be shorter), and
// on_chunk(first_row, rows) called once per chunk, on whichever thread
// wrote its last rows, as soon as all of them are in memory (fenced), while
// the threads go on with the next chunks: the gather's DMA carries a chunk
// while the next fills. on_chunk may run on several threads at once. If it
// throws, the copy still completes, no further chunk is reported, and the
// first exception is rethrown when the call returns.
//
// Pacing (optional, with on_chunk): with `ahead` > 0 and `landed`, no row
// of chunk c is written before landed(c - ahead) has returned true. It is
// polled, the thread yielding between polls, once chunk c - ahead has been
// reported, and may be called on several threads at once. So the threads
// stay at most `ahead` chunks beyond what the chunks' consumer (a gather's
// DMA) has taken: threads that fill staging far faster than the bus carries
// it take the memory bandwidth the DMA reads it with (docs/sampling.md). If
// on_chunk or landed throws, the pacing stops, the copy still completes and
// the first exception is rethrown.
//
// Ring (optional, with pacing): with `ring` > 0, `out` holds ring · rows
// rows, and chunk c is written to slot c % ring (row r of the chunk at out
// row (c % ring) · rows + r); on_chunk's caller finds the slot the same way.
// It needs pacing of exactly `ring` chunks ahead (else InvalidArgument):
// chunk c waits for chunk c - ring, whose slot it takes, to land. Once
// on_chunk or landed has thrown, slots may be rewritten before landing; the
// call rethrows, so nothing uses them.
#pragma once

#include <cstdint>
#include <functional>

namespace sgnn::sampling {

enum class RowWrites { cached, streaming };

struct RowChunks {
  int64_t rows = 0;  // > 0 with on_chunk
  std::function<void(int64_t first_row, int64_t rows)> on_chunk;
  int64_t ahead = 0;                          // pacing: chunks written beyond the last landed one
  std::function<bool(int64_t chunk)> landed;  // pacing: chunk's consumer is done with it
  int64_t ring = 0;                           // > 0: out is a ring of this many chunks (ahead == ring)
};

void copy_rows_by_threads(const void* table, int64_t row_bytes, const int32_t* ids, int64_t count, void* out,
                          RowWrites writes, const RowChunks& chunks = {});

}  // namespace sgnn::sampling
