// BatchPipeline: the mini-batches of one epoch, each sampled and gathered
// while the previous ones train.
//
//   order       host int32 [M]: the epoch's seeds in batch order (the
//               shuffled training nodes); batch b is order[b·B, (b+1)·B)
//   batch_size  B >= 1 (the last batch may be smaller)
//   first_batch the number of batch 0 for the sampler's random streams
//               (batches of later epochs draw fresh neighbours)
//   depth       batches in flight at most (>= 1); kPipelineDepth by default
//   arenas      optional: `depth` arenas kept by the caller across epochs
//               (the buffers then keep the size they grew to); else the
//               pipeline makes its own
//
// CPU: next() samples and gathers the batch there and then.
// CUDA: two threads of the pipeline's own, each with a stream of its own:
// one samples batch b + 2 while the other gathers batch b + 1's rows (the
// host-memory gathers keep the host's threads and the bus busy, the sampler
// the GPU), while batch b trains on the library's stream. Each batch in
// flight has a DeviceArena (no allocation from the library's pool, which
// may hand out memory the training stream still uses). The gathering stream
// waits for the batch's "sampled" event, next() makes the library's stream
// wait for its "ready" event (no host wait unless the batch is not gathered
// yet), and release() records a "free" event after the training step's
// work, which the sampling stream waits for before it reuses that arena
// (and, for the first use of each, for the library's stream as it was when
// the pipeline was made: arenas of an earlier epoch). The host waits only
// where the sampler reads its own stream's counts (blocks' sizes) and where
// a host gather waits for its ids, on those threads. An error on either
// thread is rethrown by next(). Release a batch before asking for the one
// `depth` batches after it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sampling/device_arena.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/neighbor_sampler.hpp"

namespace sgnn::sampling {

// Three batches in flight: batch b trains while b + 1 is gathered and b + 2
// sampled (with two, sampling waits for the training step's arena).
inline constexpr int kPipelineDepth = 3;

struct MiniBatch {
  int64_t index = 0;   // within the epoch
  Tensor seeds;        // int32 [B] on the device
  std::vector<Block> blocks;
  Tensor inputs;       // [blocks[0].num_sources(), F] of the feature store's dtype
  Tensor labels;       // int32 [B]
  int slot = -1;       // the pipeline's arena (CUDA)
};

// Where an epoch's host time went, in seconds: `sampling` the batches'
// sampling (with the host's waits for the sampler's counts), `gathering`
// their gathers (a host gather's copies included; a GPU gather's kernels
// run after it returns), `waiting` next()'s waits for a batch not yet
// gathered. On CUDA the first two run on the pipeline's threads while
// batches train; on the CPU next() does both and waits for nothing.
struct PipelineSeconds {
  double sampling = 0, gathering = 0, waiting = 0;
};

struct PipelineSources {
  const NeighborSampler* sampler = nullptr;
  const FeatureStore* features = nullptr;
  const FeatureStore* labels = nullptr;
};

class BatchPipeline {
 public:
  BatchPipeline(PipelineSources sources, Tensor order, int64_t batch_size, uint64_t first_batch, int depth = kPipelineDepth,
                std::vector<std::shared_ptr<DeviceArena>> arenas = {});
  ~BatchPipeline();
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

  int64_t num_batches() const { return num_batches_; }
  // The next batch in order; nullopt after the last.
  std::optional<MiniBatch> next();
  // Call after the training step's work on `batch` is enqueued.
  void release(MiniBatch& batch);
  // The batches taken so far (all of them once next() returned nullopt).
  PipelineSeconds seconds() const;

 private:
  class Producer;
  MiniBatch sample_batch(int64_t index, const WorkContext& context) const;
  void gather_batch(MiniBatch& batch, const WorkContext& context) const;

  PipelineSources sources_;
  Tensor order_;
  int64_t batch_size_;
  uint64_t first_batch_;
  int64_t num_batches_;
  int64_t next_index_ = 0;
  PipelineSeconds cpu_seconds_;         // the CPU's next() calls
  std::unique_ptr<Producer> producer_;  // CUDA only
};

// The training nodes in a random order: `nodes` (host int32) shuffled by a
// sort on Philox keys of (seed, epoch) — the same order on every machine.
Tensor shuffled(const Tensor& nodes, uint64_t seed, uint64_t epoch);

}  // namespace sgnn::sampling
