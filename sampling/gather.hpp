// gather_rows: out[i] = rows[ids[i]], the batch's input features (and its
// labels) from wherever the whole table lives: device memory, or host memory
// read by the GPU over unified addressing (pinned, or a page-locked mapping
// of the processed dataset file; sampling/host_access.hpp), with an optional
// device cache of some rows.
//
//   source  the table: `rows` readable by the context's device, `num_rows` x
//           `row_elements` of float32, bfloat16 or int32
//   ids     int32 [n] in [0, num_rows), on the context's device
//   out     [n, row_elements] (or [n] for a 1-wide table) on the context's
//           device; float32 or bfloat16 for a float table (converted on the
//           way: round to nearest even, or exact widening), int32 for int32
//   cache   optional: slot_of_row int32 [num_rows] (-1: not cached) and the
//           cached rows [slots, row_elements] of the source's dtype, both
//           device memory; a cached row is read from there instead
//
// CUDA: a group of lanes per row (a warp for rows of 512 bytes and more)
// reads it with coalesced 16-byte loads when its bytes allow, so a host
// table moves at the bus's rate rather than a transaction per element. A
// table in host memory (`in_host_memory`) is read in ascending id order
// (the ids sorted with their positions first, each row written to its
// position): a batch's rows then come page after page, and their
// addresses translate far faster than rows in random order
// (docs/sampling.md gives the figures).
// ids out of range are not checked on a GPU (InvalidArgument on the CPU).
//
// A host table with a HostGatherSplit (CUDA, rows of whole 16-byte vectors,
// at least kSplitMinimumRows ids) is read by two readers at once, each a
// contiguous range of the sorted ids: the GPU over unified addressing, and
// the host's threads into pinned staging (sampling/host_rows.hpp), copied
// to the device by DMA in chunks on a stream of the split's own as they
// fill, each put in place and converted by a device kernel as it lands (on
// a second stream of the split's, so the DMAs follow each other). Random rows of
// a table far larger than the translation caches are slow to read from the
// GPU (7.5 GB/s, 256-byte rows of 28 GB on the H200, against 35 by 16 host
// threads on 2 MiB pages; docs/sampling.md), and the two readers add up.
// The GPU's share is the measured balance: after each gather, the rows per
// second of each reader (the GPU's from events, the host's from its clock)
// set the next share, so both finish together. Who reads is a timed choice
// too: the first kSplitTrialGathers gathers time the GPU alone, shared
// gathers, the host threads alone into staging for the whole gather, and the
// host threads alone through a ring of a few chunks that stays in the CPU's
// cache (host_rows.hpp's ring, paced to the DMA), interleaved, three rounds,
// and the fastest way (each at its best trial) is kept (a table the GPU
// alone reads at the bus's rate gains nothing from host threads, only their
// copies on the bus; where the two readers slow each other, the threads
// alone can beat their balance; whether the ring's DMA reads the cache or
// the ring only idles the threads depends on the host: docs/sampling.md). Or a fixed share (fixed_gpu_share in [0, 1], for tests
// and benchmarks). The calling thread waits for the sorted ids of the
// host's share (the mini-batch pipeline gathers on its own thread). One
// gather at a time per split (a mutex).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "core/tensor.hpp"
#include "sampling/work_context.hpp"

namespace sgnn::sampling {

struct HostGatherSplit {
  double fixed_gpu_share = -1.0;  // in [0, 1]: always this share; else measured
  double gpu_share = 0.5;  // the next gather's share: 1 or 0 where the GPU or the threads alone read it (a trial or the choice), the measured balance where both do, or fixed
  bool ring = false;       // the next gather's host threads alone copy through the ring (a trial or the choice)
  // What the choice of readers measured, in rows per millisecond (0 until
  // measured): the GPU alone, the best shared gather, the host threads
  // alone, into whole staging and through the ring.
  double gpu_alone_rows_per_ms = 0.0, best_shared_rows_per_ms = 0.0, host_alone_rows_per_ms = 0.0,
         host_ring_rows_per_ms = 0.0;
  bool chosen = false;  // the trials are over and gpu_share is the choice's
  std::mutex mutex;
  std::shared_ptr<void> resources;  // the CUDA backend's streams, events and pinned buffers, made at first use
};

// Fewer ids than this are all read by the GPU: a split costs a host wait
// and a round of host threads, tens of microseconds, more than such a
// batch's whole gather.
inline constexpr int64_t kSplitMinimumRows = 16384;

// The trial gathers of a measured split before its readers are chosen
// (three rounds of: the GPU alone, two shared, the host threads alone,
// into whole staging and through the ring).
inline constexpr int kSplitTrialGathers = 15;

struct RowSource {
  const void* rows = nullptr;
  DType dtype = DType::Float32;
  int64_t num_rows = 0;
  int64_t row_elements = 0;
  bool in_host_memory = false;         // read over unified addressing (see above)
  HostGatherSplit* split = nullptr;  // in_host_memory: share the rows with host threads (see above)
};

struct RowCache {
  const int32_t* slot_of_row = nullptr;  // null: no cache
  const void* rows = nullptr;
};

void gather_rows(const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache = {});

}  // namespace sgnn::sampling
