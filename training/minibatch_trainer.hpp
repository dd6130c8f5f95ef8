// MinibatchTrainer: a BlockModel (training/block_model.hpp) trained on
// sampled neighbourhoods, as GraphSAGE trains.
//
// An epoch visits the training nodes in a fresh random order
// (sampling::shuffled of (seed, epoch)) in batches of batch_size seeds; each
// batch is sampled and gathered by a sampling::BatchPipeline (on a GPU while
// the previous batch trains), then one Adam step on the cross entropy of the
// seeds' logits. The losses are summed on the device and read when progress
// is reported (every progress_seconds, and at the epoch's end): no other
// host synchronisation per batch. Kernel timing (ops/kernel_choices.hpp) is
// off while training: every block is a new sparse matrix.
//
// Evaluation (every eval_every epochs from eval_from on, and never when
// evaluate is false) is layer-wise full-neighbour inference
// (training/minibatch_inference.hpp) on the train (optional), validation
// and test nodes. The best validation accuracy's parameters are kept and
// restored at the end of fit(); without any evaluation the last ones stay.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "sampling/batch_pipeline.hpp"
#include "sampling/device_arena.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/neighbor_sampler.hpp"
#include "training/metrics.hpp"
#include "training/minibatch_inference.hpp"
#include "training/block_model.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

namespace sgnn::training {

struct MinibatchData {
  const sampling::NeighborSampler* sampler = nullptr;
  const sampling::FeatureStore* features = nullptr;  // [N, F] of the model's activation dtype
  const sampling::FeatureStore* labels = nullptr;    // int32 [N]
  Tensor train_index, valid_index, test_index;       // host int32 node ids; train required
};

struct MinibatchTrainerOptions {
  int64_t epochs = 20;
  int64_t batch_size = 1024;
  uint64_t seed = 0;  // the epochs' shuffles
  bool evaluate = true;
  bool evaluate_train = true;  // the train split's full-neighbour accuracy too
  int64_t eval_every = 1;
  int64_t eval_from = 1;       // the first epoch evaluated (PyG's products example: 6)
  InferenceOptions inference;
  int pipeline_depth = sampling::kPipelineDepth;      // batches in flight (GPU)
  double progress_seconds = 0.5;
};

struct MinibatchProgress {
  int64_t epoch = 0, batch = 0, batches = 0;  // batches done of this epoch
  int64_t seeds = 0;                          // seeds trained on this epoch
  double seconds = 0;                         // since the epoch started
  double mean_loss = 0;                       // over the batches done
};

struct MinibatchEpochRecord {
  int64_t epoch = 0;
  double train_loss = 0;  // mean over the epoch's batches (with dropout)
  int64_t batches = 0, seeds = 0, sampled_edges = 0;
  double train_seconds = 0;  // sampling, gathering and training, until the last step is done
  double seeds_per_second = 0;
  sampling::PipelineSeconds stages;  // where train_seconds went on the host (sampling/batch_pipeline.hpp)
  bool evaluated = false;
  Evaluation evaluation;     // when evaluated (train zero when not asked)
  double eval_seconds = 0;
};

// Everything a resumed fit needs besides the model's parameters, the
// optimizer's state and the dropout generator (training/block_checkpoint.hpp
// saves them together): epochs done, the sampler streams used, the epochs'
// records, and the best validation epoch and its parameters (host tensors
// in BlockModel::parameters() order; none while nothing was evaluated).
struct MinibatchTrainerState {
  int64_t epoch = 0;
  uint64_t batches_drawn = 0;
  std::vector<MinibatchEpochRecord> history;  // epochs 1..epoch, in order
  int64_t best_epoch = 0;                     // 0: nothing evaluated; else an evaluated epoch of the history
  std::vector<Tensor> best_parameters;
};

struct MinibatchFit {
  std::vector<MinibatchEpochRecord> history;
  int64_t best_epoch = 0;  // 0: nothing was evaluated
  Evaluation best;         // the evaluation of the best epoch
  double epoch_seconds_median = 0;
  double train_seconds = 0;  // the whole fit
};

class MinibatchTrainer {
 public:
  // InvalidArgument on missing data, an empty train split, or options out of range.
  MinibatchTrainer(BlockModel& model, Optimizer& optimizer, MinibatchData data, MinibatchTrainerOptions options);

  // One epoch (evaluated when the options say so), recorded in state(): its
  // record joins the history, and an evaluated epoch with a better
  // validation accuracy becomes the best one. fit() runs epochs up to
  // options.epochs and restores the best epoch's parameters.
  MinibatchEpochRecord run_epoch(const std::function<void(const MinibatchProgress&)>& on_progress = {});
  Evaluation evaluate();
  MinibatchFit fit(const std::function<void(const MinibatchEpochRecord&)>& on_epoch = {},
                   const std::function<void(const MinibatchProgress&)>& on_progress = {});
  int64_t epochs_done() const { return epoch_; }
  // Where the fit stands (after fit() or any epoch; in fit's on_epoch the
  // epoch's record is in it), and a resumed fit's start: set_state throws
  // InvalidArgument, changing nothing, for a history that is not epochs
  // 1..epoch, a best epoch that is not an evaluated one of it, or best
  // parameters that are not the model's count and shapes. fit() then runs
  // the epochs after state.epoch up to options.epochs.
  MinibatchTrainerState state() const;
  void set_state(MinibatchTrainerState state);

 private:
  void remember_best();
  void restore_best();
  const MinibatchEpochRecord* best_record() const;

  BlockModel& model_;
  Optimizer& optimizer_;
  MinibatchData data_;
  MinibatchTrainerOptions options_;
  int64_t epoch_ = 0;
  uint64_t batches_drawn_ = 0;  // sampler stream numbers used so far
  std::vector<MinibatchEpochRecord> history_;
  int64_t best_epoch_ = 0;
  std::vector<Tensor> best_parameters_;
  std::vector<std::shared_ptr<sampling::DeviceArena>> arenas_;  // the pipeline's, kept across epochs (GPU)
};

}  // namespace sgnn::training
