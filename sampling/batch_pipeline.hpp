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
// CUDA: a thread of its own samples batch b + 1, ..., b + depth - 1 and
// gathers their rows on a stream of its own, into one DeviceArena per batch
// in flight (no allocation from the library's pool, which may hand out
// memory the training stream still uses), while batch b trains on the
// library's stream. next() makes the library's stream wait for the batch's
// "ready" event (no host wait unless the batch is not sampled yet), and
// release() records a "free" event after the training step's work, which
// the sampling stream waits for before it reuses that arena (and, for the
// first use of each, for the library's stream as it was when the pipeline
// was made: arenas of an earlier epoch). The host waits only where the
// sampler reads its own stream's counts (blocks' sizes), on the sampling
// thread. An error on that thread is rethrown by next(). Release a batch
// before asking for the one `depth` batches after it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sampling/device_arena.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/neighbor_sampler.hpp"

namespace sgnn::sampling {

// Two batches in flight: batch b trains while b + 1 is sampled and gathered.
// Three, with the gathers on a second stream, were measured and not kept:
// the papers100M-scale epoch, bound by its host-memory gathers, took 18.73 s
// either way (H200, 20d3949), and each batch in flight holds an arena.
inline constexpr int kPipelineDepth = 2;

struct MiniBatch {
  int64_t index = 0;   // within the epoch
  Tensor seeds;        // int32 [B] on the device
  std::vector<Block> blocks;
  Tensor inputs;       // [blocks[0].num_sources(), F] of the feature store's dtype
  Tensor labels;       // int32 [B]
  int slot = -1;       // the pipeline's arena (CUDA)
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

 private:
  class Producer;
  MiniBatch make_batch(int64_t index, const WorkContext& context) const;

  PipelineSources sources_;
  Tensor order_;
  int64_t batch_size_;
  uint64_t first_batch_;
  int64_t num_batches_;
  int64_t next_index_ = 0;
  std::unique_ptr<Producer> producer_;  // CUDA only
};

// The training nodes in a random order: `nodes` (host int32) shuffled by a
// sort on Philox keys of (seed, epoch) — the same order on every machine.
Tensor shuffled(const Tensor& nodes, uint64_t seed, uint64_t epoch);

}  // namespace sgnn::sampling
