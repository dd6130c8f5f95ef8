#include "training/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>

#include "core/memory.hpp"
#include "core/process_clock.hpp"
#include "graph_io/adjacency_cache.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sparse_input.hpp"
#include "ops/spmm_hrpb.hpp"
#include "training/checkpoint.hpp"
#include "training/device_warm_up.hpp"
#include "training/inference.hpp"
#include "training/kernel_selection.hpp"
#include "training/memory_estimate_check.hpp"
#include "training/numerics_check.hpp"

namespace sgnn::training {

namespace {

void note(const ExperimentHooks& hooks, const std::string& text) {
  if (hooks.on_note) hooks.on_note(text);
}

// A model that reads edge features needs a dataset that has them.
void require_edge_features(const ModelEntry& entry, const graph_io::Dataset& dataset) {
  SGNN_CHECK(!entry.graph.edge_features || dataset.edge_features.defined(), "the ", entry.name,
             " model reads edge features, and dataset \"", dataset.name, "\" from ", dataset.source,
             " has none (OGB's raw layout: raw/edge-feat.csv.gz, one row per line of edge.csv)");
}

void require_splits(const graph_io::Dataset& dataset) {
  const std::string where = " (dataset \"" + dataset.name + "\" from " + dataset.source + ")";
  SGNN_CHECK(dataset.features.defined(), "node classification needs node features", where);
  SGNN_CHECK(dataset.labels.defined(), "node classification needs node labels", where);
  SGNN_CHECK(dataset.train_index.defined() && dataset.valid_index.defined(),
             "node classification needs train and validation splits", where);
  SGNN_CHECK(dataset.num_classes >= 2, "node classification needs at least 2 classes, got ", dataset.num_classes,
             where);
}

}  // namespace

ExperimentResult run_experiment(const ExperimentOptions& options, const ExperimentHooks& hooks) {
  validate_options(options);
  const Device device = Device::parse(options.device);
  require_available(device);
  const ops::DeterministicScope deterministic_scope(options.deterministic);

  const ModelEntry& entry = model_entry(options.model);
  ExperimentResult result;
  result.model = entry.name;
  result.device = device.str();
  result.deterministic = options.deterministic;
  result.precision = precision_name(options.precision);
  SpmmFormat spmm_format = parse_spmm_format(options.spmm);
  if (!entry.fixed_weights && spmm_format != SpmmFormat::Csr) {
    if (spmm_format == SpmmFormat::Hrpb) {
      result.notes.push_back("--spmm hrpb: the " + entry.name + " model aggregates with learned per-edge weights, "
                             "which the HRPB layout (fixed weights) cannot hold; using csr");
      note(hooks, result.notes.back());
    }
    spmm_format = SpmmFormat::Csr;
  }

  if (!options.predictions.empty()) require_output_path(options.predictions, "--predictions");
  if (!options.embeddings.empty()) require_output_path(options.embeddings, "--embeddings");

  // The CUDA context, the memory pool and cuBLAS start on their own thread
  // while the dataset is mapped or parsed (a few hundred ms at first use).
  std::future<void> device_ready;
  if (device.is_cuda()) device_ready = std::async(std::launch::async, [device] { warm_up_device(device); });
  struct Join {
    std::future<void>& future;
    ~Join() {
      if (future.valid()) future.wait();
    }
  } join{device_ready};

  graph_io::LoadOptions load_options;
  load_options.defer_checks = true;         // make_graph checks what it reads, on the way to the device
  load_options.store_in_background = true;  // a first run trains while its processed file is written
  load_options.cache_dir = options.cache_dir;
  graph_io::Dataset dataset = graph_io::load_dataset(options.dataset, load_options);
  if (device_ready.valid()) device_ready.get();  // rethrows a device failure here, before any work on it
  memory::reset_peak(device);
  require_splits(dataset);
  require_edge_features(entry, dataset);
  result.dataset = dataset.name;
  result.dataset_source = dataset.source;
  result.hyperparameters = resolve_hyperparameters(entry, dataset.name, options.hyperparameters);
  const TrainingSettings h = training_settings(result.hyperparameters);
  const graph_io::FeatureTransform feature_transform =
      !options.row_normalize_features ? entry.feature_transform
      : *options.row_normalize_features ? graph_io::FeatureTransform::RowNormalize
                                        : graph_io::FeatureTransform::None;
  result.feature_transform = graph_io::feature_transform_name(feature_transform);
  const ModelDescription description =
      describe_model(entry, dataset.features.size(1), dataset.num_classes, result.hyperparameters, feature_transform,
                     options.precision, dataset.edge_features.defined() ? dataset.edge_features.size(1) : 0);

  // Refuse before allocating anything on the device when it cannot fit.
  const graph_io::GraphOptions& graph_options = entry.graph;
  std::optional<int64_t> cached_entries;
  if (!options.cache_dir.empty()) {
    cached_entries = graph_io::cached_adjacency_entries(options.cache_dir, dataset, graph_options);
  }
  require_experiment_fits(description, dataset, spmm_format != SpmmFormat::Csr, device, cached_entries);
  const CheckNumericsScope numerics_scope(options.check_numerics);

  graph_io::Graph graph;
  try {
    graph = graph_io::make_graph(dataset, graph_options, device, options.cache_dir);
  } catch (const IoError& failure) {
    // A processed file whose checksum failed only when its payload was read: parse the raw files again.
    if (!dataset.load.processed_hit || failure.file() != dataset.load.processed_path) throw;
    std::cerr << "sparsegnn: ignoring the processed dataset (" << failure.what() << "); rebuilding it\n";
    load_options.rebuild = true;
    dataset = graph_io::load_dataset(options.dataset, load_options);
    graph = graph_io::make_graph(dataset, graph_options, device, options.cache_dir);
  }
  graph_io::HrpbOptions hrpb_options;
  hrpb_options.concurrent_blocks = ops::spmm_hrpb_concurrent_blocks(device, aggregation_width(description));
  hrpb_options.deterministic = options.deterministic;  // split panels merged in a fixed order
  KernelSelection kernels(graph, spmm_format, hrpb_options, graph_options.prepare.symmetrize);
  const double hrpb_ms = kernels.hrpb_ms();
  const auto feature_start = std::chrono::steady_clock::now();
  // In bf16 the normalisation writes bfloat16 directly; features used as
  // stored are converted once here rather than by every forward.
  const DType feature_dtype = activation_dtype(options.precision);
  Tensor features =
      ops::cast(graph_io::apply_feature_transform(graph.features, feature_transform, feature_dtype), feature_dtype);
  // The model reads `features`; the loaded copy would stay beside it (in
  // bf16 the float32 features and their bfloat16 copy, 1.5x the memory).
  graph.features = Tensor();
  // Sparse input features (bag-of-words) carry their non-zeros: the first
  // layer's products run over them where that measures faster.
  ops::attach_sparse_rows(features);
  memory::synchronize(device);
  const double feature_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - feature_start).count();
  // Preparation (building the transpose, its sort's temporaries) and
  // training peak apart: the second is what the model and precision decide.
  result.preparation_peak_device_bytes = memory::usage(device).peak_bytes;
  memory::reset_peak(device);
  result.read_ms = graph.statistics.read_ms;
  result.preprocess_ms = graph.statistics.prepare_ms + hrpb_ms + feature_ms;
  result.cache_hit = graph.statistics.cache_hit;
  result.phases.processed_hit = dataset.load.processed_hit;
  result.phases.load_ms = dataset.read_ms;
  result.phases.adjacency_cache_hit = graph.statistics.cache_hit;
  result.phases.adjacency_ms = graph.statistics.adjacency_ms;
  result.phases.upload_ms = graph.statistics.upload_ms;
  result.phases.hrpb_ms = hrpb_ms;
  result.phases.kernel_choices_stored = kernels.imported();
  const double timing_before = ops::timing_milliseconds();
  result.nodes = graph.num_nodes;
  result.edges = graph.adjacency.nnz();
  result.features = features.size(1);
  result.classes = graph.num_classes;

  TrainingData data;
  data.graph = GraphInput(graph);
  // Edge features in the activation dtype once, not by every forward.
  if (graph.edge_features.defined()) {
    data.graph.edge_features = ops::cast(graph.edge_features, feature_dtype);
    graph.edge_features = Tensor();  // in bf16 the float32 copy would stay beside the model's
  }
  data.features = features;
  data.labels = graph.labels;
  data.train_index = graph.train_index;
  data.valid_index = graph.valid_index;
  data.test_index = graph.test_index;
  TrainerOptions trainer_options;
  trainer_options.epochs = h.epochs;
  trainer_options.patience = h.patience;
  trainer_options.monitor = h.monitor;
  trainer_options.capture_step = parse_step_capture(options.cuda_graph);
  const bool capture_planned = resolve_step_capture(trainer_options.capture_step, device);
  result.cuda_graph = options.cuda_graph;
  result.step_captured = capture_planned;

  std::vector<double> accuracies, f1s, steps, totals;
  for (int64_t run = 0; run < options.runs; ++run) {
    const uint64_t seed = options.seed + static_cast<uint64_t>(run);
    Generator generator(seed);
    const std::shared_ptr<Model> model = make_model(description, generator);
    SGNN_CHECK(options.embeddings.empty() || has_embeddings(*model), "--embeddings: the ", entry.name,
               " model has no hidden layer (one layer with parameters), no embeddings to write");
    model->to(device);
    ops::AdamHyperparameters adam;
    adam.learning_rate = h.learning_rate;
    Adam optimizer(model->parameter_groups(h.weight_decay), adam);
    Trainer trainer(*model, optimizer, data, trainer_options);
    if (!options.resume.empty()) {
      load_checkpoint(options.resume, *model, optimizer, trainer, generator);
      note(hooks, "resumed from " + options.resume + " after epoch " + std::to_string(trainer.state().epoch));
      // Saved at once in the current format: resuming a finished run for no
      // more epochs converts an older checkpoint (checkpoint.hpp).
      if (!options.checkpoint.empty()) {
        save_checkpoint(options.checkpoint, *model, optimizer, trainer.state(), generator);
      }
    }
    const int64_t first_epoch = trainer.state().epoch + 1;  // after a resume, the epoch after the checkpoint's
    const auto fit_started = std::chrono::steady_clock::now();
    const auto on_epoch = [&](const EpochRecord& record) {
      if (run == 0 && record.epoch == first_epoch) {
        kernels.after_first_epoch();  // every width the model runs has been timed by now
        result.phases.first_epoch_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - fit_started).count();
        result.phases.start_to_first_epoch_s = seconds_since_process_start().value_or(0.0);
      }
      if (hooks.on_epoch) hooks.on_epoch(run, h.epochs, record);
      if (!options.checkpoint.empty() && (record.epoch % options.checkpoint_every == 0 || trainer.finished())) {
        save_checkpoint(options.checkpoint, *model, optimizer, trainer.state(), generator);
      }
    };
    std::optional<GradientRanges> ranges;
    if (options.gradient_ranges && run == 0) ranges.emplace(*model);
    RunSummary summary{seed, trainer.fit(on_epoch)};
    if (ranges) {
      result.gradient_ranges = ranges->ranges();
      ranges.reset();
    }
    if (!options.predictions.empty() || !options.embeddings.empty()) {
      // fit() restored the best epoch's parameters: the outputs are theirs.
      write_model_outputs(OutputFiles{options.predictions, options.embeddings}, *model, data.graph, features,
                          output_rows(graph.num_nodes, graph.node_order));
      result.predictions = options.predictions;
      result.embeddings = options.embeddings;
    }
    if (capture_planned && !summary.result.step_captured && trainer.state().epoch > 1) {
      result.step_captured = false;
      result.notes.push_back("run " + std::to_string(run + 1) +
                             ": the training step could not be captured in a CUDA Graph (see stderr); it ran eagerly");
      note(hooks, result.notes.back());
    }
    if (trainer.state().epoch <= 1) result.step_captured = false;  // one eager step only: nothing replayed
    accuracies.push_back(summary.result.best.test.accuracy);
    f1s.push_back(summary.result.best.test.macro_f1);
    steps.push_back(summary.result.epoch_ms_median);
    totals.push_back(summary.result.train_seconds);
    result.runs.push_back(std::move(summary));
  }
  result.spmm = kernels.spmm_description(aggregation_width(description), activation_dtype(options.precision));
  result.phases.tuning_ms = ops::timing_milliseconds() - timing_before;
  for (const std::string& text : kernels.notes()) {
    result.notes.push_back(text);
    note(hooks, text);
  }
  std::tie(result.test_accuracy, result.test_accuracy_std) = mean_and_std(accuracies);
  result.test_macro_f1 = mean_and_std(f1s).first;
  result.epoch_ms_median = median(steps);
  result.train_seconds = median(totals);
  result.training_peak_device_bytes = memory::usage(device).peak_bytes;
  result.peak_device_bytes = std::max(result.preparation_peak_device_bytes, result.training_peak_device_bytes);
  return result;
}

}  // namespace sgnn::training
