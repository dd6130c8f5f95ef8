// Experiment: what sgnn_train (and train_gcn, train_gat) run. Loads a
// dataset, prepares the graph once as the model's kind asks (cached when
// asked), trains `runs` models with seeds seed,
// seed+1, ... and summarises them (mean ± std of test accuracy at the best
// validation epoch, step times, memory, preprocessing time). Also the JSON
// document of --out / --print-json (schema: docs/results-json.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph_io/graph.hpp"
#include "training/gradient_ranges.hpp"
#include "training/nn/model_registry.hpp"
#include "training/trainer.hpp"

namespace sgnn::training {

struct ExperimentOptions {
  std::string model = "gcn";  // a registered kind (training/nn/model_registry.hpp)
  std::string dataset;        // a name (cora, citeseer, pubmed, ...) or a path
  // The model's hyperparameters by name, as text ({"hidden", "32"}, {"lr",
  // "0.005"}); those left out take the kind's default for the dataset.
  std::map<std::string, std::string> hyperparameters;
  // Scale each feature row to sum 1 (true) or use the features as stored
  // (false); unset: the model's default (ModelEntry::feature_transform).
  std::optional<bool> row_normalize_features;
  uint64_t seed = 0;
  int64_t runs = 1;
  std::string device = "cpu";  // cpu | cuda | cuda:k
  std::string spmm = "auto";   // csr | hrpb | auto (ops/spmm_format.hpp); models of learned edge weights use csr
  std::string cache_dir;       // empty: no adjacency cache
  std::string cuda_graph = "auto";  // auto | on | off: capture the training step (TrainerOptions::capture_step)
  std::string checkpoint;      // save here after every `checkpoint_every` epochs and at the end (runs = 1)
  int64_t checkpoint_every = 1;
  std::string resume;          // continue from this checkpoint (runs = 1)
  bool check_numerics = false; // stop at the first op whose output or gradient is NaN/Inf (training/numerics_check.hpp)
  // Record the smallest non-zero and largest |gradient| per layer during the
  // first run (training/gradient_ranges.hpp; eager, slow). Not with check_numerics.
  bool gradient_ranges = false;
  // Bit-identical results for the same seed, device and build: SpMM split
  // rows and HRPB split panels merge in a fixed order instead of with atomics
  // (ops/determinism.hpp, docs/determinism.md). The process-wide mode is set
  // for the run and restored after it.
  bool deterministic = false;
  // Float32, or BFloat16 mixed precision (training/nn/precision.hpp): features
  // normalised straight to bfloat16, bfloat16 activations, float32 masters.
  Precision precision = Precision::Fp32;
  // The trained model's outputs (runs = 1; training/output/prediction_writer.hpp):
  // per node class probabilities, and the last hidden layer. They come from
  // the parameters training ends with, those of the best validation epoch
  // (the final checkpoint's "best" ones, which sgnn_predict uses).
  std::string predictions;
  std::string embeddings;
};

// What the trainer and the optimizer take of the resolved hyperparameters
// (the common training ones: training_hyperparameters()).
struct TrainingSettings {
  int64_t epochs = 200, patience = 0;
  float learning_rate = 0.01f, weight_decay = 5e-4f;
  Monitor monitor = Monitor::ValidationAccuracy;
};
TrainingSettings training_settings(const std::map<std::string, std::string>& hyperparameters);

// Checks the options that do not depend on the dataset (the model and its
// hyperparameters' names and values, device string, spmm kind, runs,
// checkpoint with several runs, ...). InvalidArgument otherwise.
void validate_options(const ExperimentOptions& options);

struct RunSummary {
  uint64_t seed = 0;
  TrainResult result;
};

struct ExperimentResult {
  std::string dataset, dataset_source, model, device, spmm;
  // Every hyperparameter of the model as it trained (resolve_hyperparameters).
  std::map<std::string, std::string> hyperparameters;
  std::vector<RunSummary> runs;
  std::vector<std::string> notes;  // e.g. a fallback that was taken
  int64_t nodes = 0, edges = 0, features = 0, classes = 0;
  double test_accuracy = 0, test_accuracy_std = 0;  // mean and population std over runs
  double test_macro_f1 = 0;                         // mean over runs
  double epoch_ms_median = 0;                       // median over runs of each run's median step
  double train_seconds = 0;                         // median over runs
  double read_ms = 0, preprocess_ms = 0;
  bool cache_hit = false;
  // Where the time before training went, and the time to the first epoch.
  struct Phases {
    bool processed_hit = false;   // the dataset was mapped from its processed file, nothing parsed
    double load_ms = 0;           // parsing the raw files, or mapping the processed file
    bool adjacency_cache_hit = false;
    double adjacency_ms = 0;      // loading the adjacency cache (hit) or preparing the adjacency (miss)
    double upload_ms = 0;         // features, labels and splits to the device (overlaps adjacency_ms)
    double hrpb_ms = 0;           // the HRPB layout, built or loaded (0 when no kernel needs it)
    double tuning_ms = 0;         // timing candidate kernels (ops/kernel_choices.hpp), all runs
    bool kernel_choices_stored = false;  // the choices came from the cache folder: nothing was timed
    double first_epoch_ms = 0;    // epoch 1 of the first run: step, evaluation, CUDA Graph capture
    double start_to_first_epoch_s = 0;  // from process start to the end of that epoch (0 if unknown)
  } phases;
  int64_t peak_device_bytes = 0;              // the most device memory live at once, the whole run
  int64_t preparation_peak_device_bytes = 0;  // … while the graph and features were prepared
  int64_t training_peak_device_bytes = 0;     // … from then on (models, steps, evaluation)
  std::string cuda_graph;      // the --cuda-graph option
  bool step_captured = false;  // every run replayed its training step from a CUDA Graph
  bool deterministic = false;  // the --deterministic option the runs used
  std::string precision = "fp32";  // the --precision the runs used (fp32, bf16)
  std::string feature_transform;   // what the features went through: "row-normalize" or "none"
  std::map<std::string, GradientRange> gradient_ranges;  // run 1's, when asked (per layer)
  std::string predictions, embeddings;  // the files written (empty: none)
};

struct ExperimentHooks {
  std::function<void(int64_t run, int64_t epochs, const EpochRecord&)> on_epoch;  // run 0-based; epochs planned
  std::function<void(const std::string&)> on_note;               // fallbacks, checkpoint saves
};

ExperimentResult run_experiment(const ExperimentOptions& options, const ExperimentHooks& hooks = {});

// The --out document (compact, one line) for `program` ("train_gcn").
std::string experiment_json(const ExperimentResult& result, const std::string& program);

// Mean and population standard deviation.
std::pair<double, double> mean_and_std(const std::vector<double>& values);

}  // namespace sgnn::training
