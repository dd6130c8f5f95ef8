// Trainer: full-batch node classification on one graph.
//
// Each epoch: one optimizer step on the training rows (train mode, dropout
// on), then an evaluation of every split in eval mode under NoGradGuard (no
// dropout, no tape). The best epoch by the monitored validation metric is
// remembered with a copy of its parameters and buffers; training stops after
// `patience` epochs without improvement (0: never early) and the best
// parameters and buffers are restored at the end. Deterministic from the generator's seed on the CPU.
// A NaN or Inf training loss stops training with NumericalError naming the
// epoch; in the numerics check mode (training/numerics_check.hpp) the error
// also names the layer and the op that first produced a non-finite value.
//
// TrainingState holds everything besides the model, optimizer and generator
// that a resumed run needs to continue bit-identically (see checkpoint.hpp).
//
// Step capture (TrainerOptions::capture_step): on CUDA the first step runs
// eagerly (it builds sparse plans and other lazily created state), the second
// is captured into a CUDA Graph (core/cuda_graph.hpp) and every later step
// replays it: same kernels, same dropout masks, same Adam updates, with the
// generator and optimizer counters advancing as in eager mode. A captured
// step leaves the parameter gradients undefined afterwards (they are freed
// inside the graph). If the capture fails the trainer prints one line to
// stderr and stays eager.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_graph.hpp"

#include "training/output/epoch_record.hpp"
#include "training/nn/layer.hpp"
#include "training/metrics.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"

namespace sgnn::training {

// Features, labels and splits of one graph, all on the model's device.
struct TrainingData {
  GraphInput graph;
  Tensor features;     // [N, F] float32 or bfloat16 (the model converts them to its precision)
  Tensor labels;       // [N] int32 in [0, classes)
  Tensor train_index;  // int32 row ids; train and validation are required
  Tensor valid_index;
  Tensor test_index;   // may be undefined (no test metrics then)
};

// What counts as a better epoch. ValidationLossAndAccuracy is the rule of
// Veličković et al.'s GAT code: patience resets when the validation accuracy
// reaches its best or the loss its lowest so far, and the parameters are kept
// only when both do at once (ties count as better).
enum class Monitor : unsigned char { ValidationAccuracy, ValidationLoss, ValidationLossAndAccuracy };
const char* monitor_name(Monitor monitor);  // "accuracy", "loss", "loss+accuracy"

// Auto and On: capture on a CUDA device (a replay is never slower than the
// eager step and holds no more memory: docs/kernels.md); Auto stays eager on
// the CPU, On there is InvalidArgument. Off: eager.
enum class StepCapture : unsigned char { Auto, On, Off };
// Whether a trainer with this option captures its step on `device`.
bool resolve_step_capture(StepCapture capture, Device device);
// "auto" | "on" | "off" -> StepCapture; anything else -> InvalidArgument.
StepCapture parse_step_capture(const std::string& text);
const char* step_capture_name(StepCapture capture);

struct TrainerOptions {
  int64_t epochs = 200;
  int64_t patience = 0;  // 0: run every epoch
  Monitor monitor = Monitor::ValidationAccuracy;
  bool restore_best = true;
  StepCapture capture_step = StepCapture::Auto;
};

struct Evaluation {
  SplitMetrics train, validation, test;
};

struct TrainingState {
  int64_t epoch = 0;  // epochs completed
  int64_t best_epoch = 0;  // 0: none yet
  double best_validation_accuracy = -1.0;  // highest / lowest so far (of the best epoch
  double best_validation_loss = std::numeric_limits<double>::infinity();  // unless loss+accuracy)
  int64_t epochs_without_improvement = 0;
  bool stopped_early = false;
  std::vector<EpochRecord> history;
  std::vector<Tensor> best_parameters;  // copies, in Model::parameters() order; empty before the first epoch
  // The buffers of the same epoch (BatchNorm's running statistics), in
  // Model::named_buffers() order: restored with the parameters, so that the
  // best epoch's model evaluates as it did then. Empty for a model without
  // buffers (and in checkpoints written before they were kept).
  std::vector<Tensor> best_buffers;
};

struct TrainResult {
  std::vector<EpochRecord> history;
  int64_t best_epoch = 0;
  bool stopped_early = false;
  Evaluation best;  // every split, with the restored (best) parameters
  double train_seconds = 0;    // wall time of this fit() call
  double epoch_ms_median = 0;  // median training-step time over the history
  bool step_captured = false;  // the steps after the first two were CUDA Graph replays
};

class Trainer {
 public:
  // Checks the data (shapes, dtypes, devices, label range), the options and,
  // for a BFloat16 model, that the optimizer refreshes its weight copies;
  // InvalidArgument with the problem otherwise. Holds references to all three.
  Trainer(Model& model, Optimizer& optimizer, TrainingData data, TrainerOptions options);

  // One epoch: step, evaluate, update the best epoch and patience.
  EpochRecord run_epoch();
  bool finished() const;
  // Runs epochs until finished(), calling `on_epoch` after each, then restores
  // the best parameters (when asked) and evaluates every split.
  TrainResult fit(const std::function<void(const EpochRecord&)>& on_epoch = {});
  // Every split in eval mode without building a tape; the mode is restored.
  Evaluation evaluate();

  const TrainingState& state() const { return state_; }
  // For checkpoints: InvalidArgument when best_parameters or best_buffers do not match the model.
  void set_state(TrainingState state);
  const TrainerOptions& options() const { return options_; }
  const TrainingData& data() const { return data_; }
  // Whether the training step is now replayed from a CUDA Graph.
  bool step_captured() const { return captured_step_ != nullptr; }

 private:
  double train_step();  // returns the training loss
  // The training loss on the autograd tape: cross-entropy over the training
  // rows, of only those rows' logits where the model computes them alone
  // (Model::forward_rows_is_cheaper), else of every row's.
  Tensor training_loss();
  // The step through the CUDA Graph when capture is on and possible (the
  // first call after an eager step captures); nullopt: run it eagerly.
  std::optional<double> captured_train_step();
  void zero_all_gradients();
  void remember_best();
  void restore_best();

  Model& model_;
  Optimizer& optimizer_;
  TrainingData data_;
  TrainerOptions options_;
  TrainingState state_;
  bool capture_enabled_ = false;
  bool capture_failed_ = false;
  int64_t eager_steps_ = 0;  // in this trainer; capture waits for one
  std::unique_ptr<CapturedStep> captured_step_;
  Tensor train_labels_;  // labels of data_.train_index's rows in its order, where training_loss uses them
};

// Whether `record` resets the patience (improved) and becomes the best epoch
// (keep) under `monitor`; updates the best scores in `state`.
struct EpochVerdict {
  bool improved = false;
  bool keep = false;
};
EpochVerdict judge_epoch(Monitor monitor, const EpochRecord& record, TrainingState& state);

double median(std::vector<double> values);  // 0 for an empty list

}  // namespace sgnn::training
