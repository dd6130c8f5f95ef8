#include "training/minibatch_experiment.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numeric>
#include <string>

#include "core/memory.hpp"
#include "core/memory_estimate.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"
#include "ops/cast.hpp"
#include "training/block_checkpoint.hpp"
#include "training/checkpoint.hpp"
#include "training/inference.hpp"
#include "training/minibatch_gat.hpp"
#include "training/minibatch_gcn.hpp"
#include "training/minibatch_sage.hpp"
#include "training/output/json.hpp"

namespace sgnn::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t peak_resident_bytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

void note(const MinibatchHooks& hooks, MinibatchResult& result, std::string text) {
  result.notes.push_back(std::move(text));
  if (hooks.on_note) hooks.on_note(result.notes.back());
}

sampling::Residence resolve_residence(const std::string& option, int64_t bytes, int64_t& budget) {
  sampling::Residence residence = sampling::Residence::Device;
  if (option == "host") {
    residence = sampling::Residence::Host;
  } else if (option == "auto" && bytes > budget) {
    residence = sampling::Residence::Host;
  }
  if (residence == sampling::Residence::Device) budget -= bytes;
  return residence;
}

// Layer-wise evaluation keeps two hidden tables of every node at once, on the
// device when they fit its budget, else in pinned host memory. Refused
// before training when neither can hold them (papers100M-scale at hidden 256
// needs 114 GB a table in float32): a run would train and then fail.
void require_evaluation_fits(const MinibatchOptions& options, int64_t nodes, DType dtype, int64_t device_budget) {
  if (!options.evaluate || options.fanouts.size() < 2) return;
  const int64_t table = nodes * options.hidden * static_cast<int64_t>(dtype_size(dtype));
  if (device_budget < 0 || 2 * table <= device_budget) return;
  const auto host = static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
  SGNN_CHECK(2 * table <= host / 2, "layer-wise evaluation needs two tables of ", nodes, " x ", options.hidden, " (",
             table >> 30, " GiB each), more than the device budget (", device_budget >> 30,
             " GiB) and half the host memory (", (host / 2) >> 30, " GiB); train with --no-eval, or a smaller --hidden");
}

void require_node_classification(const graph_io::Dataset& dataset) {
  const std::string where = " (dataset \"" + dataset.name + "\" from " + dataset.source + ")";
  SGNN_CHECK(dataset.features.defined(), "mini-batch training needs node features", where);
  SGNN_CHECK(dataset.labels.defined(), "mini-batch training needs node labels", where);
  SGNN_CHECK(dataset.train_index.defined() && dataset.train_index.numel() > 0,
             "mini-batch training needs a train split", where);
  SGNN_CHECK(dataset.num_classes >= 2, "mini-batch training needs at least 2 classes, got ", dataset.num_classes,
             where);
}

// The built-in models whose layers take sampled blocks: the one place that
// names them (sgnn_train --model NAME --batch-size, minibatch_model_names()).
struct BlockModelKind {
  const char* name;
  std::unique_ptr<BlockModel> (*make)(const BlockModelConfig&, const std::string& aggregator, Generator&);
  bool self_loops;  // samples from a graph with a self loop per node
};
constexpr BlockModelKind kBlockModelKinds[] = {
    {"sage",
     [](const BlockModelConfig& config, const std::string& aggregator,
        Generator& generator) -> std::unique_ptr<BlockModel> {
       return std::make_unique<SageModel>(config, generator, parse_sage_aggregator(aggregator));
     },
     false},
    {"gcn",
     [](const BlockModelConfig& config, const std::string&, Generator& generator) -> std::unique_ptr<BlockModel> {
       return std::make_unique<GcnBlockModel>(config, generator);
     },
     false},
    {"gat",
     [](const BlockModelConfig& config, const std::string&, Generator& generator) -> std::unique_ptr<BlockModel> {
       return std::make_unique<GatBlockModel>(config, generator);
     },
     true},
};

const BlockModelKind& block_model_kind(const std::string& name) {
  for (const BlockModelKind& kind : kBlockModelKinds) {
    if (name == kind.name) return kind;
  }
  std::string names;
  for (const BlockModelKind& kind : kBlockModelKinds) names += (names.empty() ? "" : ", ") + std::string(kind.name);
  throw InvalidArgument(detail::concat("mini-batch training: no built-in model \"", name,
                                       "\" whose layers take sampled blocks (there are ", names,
                                       "); give run_minibatch_experiment a BlockModelFactory for a model of your own"));
}


// MinibatchResult::feature_readers for `store`.
std::string describe_readers(const sampling::FeatureStore& store) {
  const sampling::FeatureStore::SplitTrials trials = store.split_trials();
  if (trials.gpu_alone_rows_per_ms == 0.0 && trials.best_shared_rows_per_ms == 0.0 &&
      trials.host_alone_rows_per_ms == 0.0 && trials.host_ring_rows_per_ms == 0.0) {
    return "";
  }
  const double row_bytes =
      static_cast<double>(store.row_elements() * static_cast<int64_t>(dtype_size(store.table().dtype())));
  const auto rate = [&](double rows_per_ms) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f", rows_per_ms * row_bytes / 1e6);
    return std::string(text);
  };
  const double share = store.gpu_read_share();
  std::string who = !trials.chosen ? "still timing"
                    : share == 1.0 ? "GPU alone"
                    : share == 0.0 ? (trials.ring ? "host threads alone, through a ring" : "host threads alone")
                                   : "shared, GPU share " + std::to_string(static_cast<int>(std::lround(100.0 * share))) + " %";
  return who + " (trials: GPU alone " + rate(trials.gpu_alone_rows_per_ms) + ", shared " +
         rate(trials.best_shared_rows_per_ms) + ", host threads alone " + rate(trials.host_alone_rows_per_ms) +
         ", through a ring " + rate(trials.host_ring_rows_per_ms) + " GB/s)";
}

}  // namespace

std::vector<std::string> minibatch_model_names() {
  std::vector<std::string> names;
  for (const BlockModelKind& kind : kBlockModelKinds) names.emplace_back(kind.name);
  return names;
}

MinibatchOptions minibatch_options(const ExperimentOptions& e, const MinibatchOptions& sampling) {
  const std::vector<std::string> kinds = minibatch_model_names();
  if (std::find(kinds.begin(), kinds.end(), e.model) == kinds.end()) {
    std::string names;
    for (const std::string& kind : kinds) names += (names.empty() ? "" : ", ") + kind;
    throw InvalidArgument(detail::concat("--batch-size: mini-batch training takes the models whose layers take sampled "
                                         "blocks (", names, "); the ", e.model, " model's layers do not"));
  }
  std::vector<std::string> refused;
  const std::pair<bool, const char*> full_graph_only[] = {
      {e.runs != 1, "--runs"},
      {!e.embeddings.empty(), "--embeddings"},
      {e.check_numerics, "--check-numerics"},
      {e.gradient_ranges, "--gradient-ranges"},
      {e.deterministic, "--deterministic"},
      {e.spmm != "auto", "--spmm"},
      {e.cuda_graph != "auto", "--cuda-graph"}};
  for (const auto& [given, flag] : full_graph_only) {
    if (given) refused.emplace_back(flag);
  }
  if (!refused.empty()) {
    std::string flags;
    for (const std::string& flag : refused) flags += (flags.empty() ? "" : ", ") + flag;
    throw InvalidArgument(detail::concat("--batch-size (mini-batch training, one run) does not take ", flags,
                                         ": they are full-graph training's; drop them"));
  }
  const ModelEntry& entry = model_entry(e.model);
  const std::map<std::string, std::string> h = resolve_hyperparameters(entry, e.dataset, e.hyperparameters);
  const TrainingSettings settings = training_settings(h);
  // A registry entry's early stopping (GAT's patience) is full-graph training's; given on the command line it
  // is refused.
  const auto given = [&e](const char* name) { return e.hyperparameters.count(name) > 0; };
  SGNN_CHECK((!given("patience") || settings.patience == 0) &&
                 (!given("monitor") || settings.monitor == Monitor::ValidationAccuracy),
             "--batch-size: mini-batch training keeps the best validation accuracy's parameters without early "
             "stopping; drop --patience and --monitor");
  const std::string context = "model " + e.model;
  const auto hops = static_cast<int64_t>(sampling.fanouts.size());
  const auto layers = e.hyperparameters.find("layers");
  SGNN_CHECK(layers == e.hyperparameters.end() || integer_value(layers->second, "layers", context) == hops,
             "--layers ", layers == e.hyperparameters.end() ? "" : layers->second, " and --fanout (", hops,
             " hops) disagree: mini-batch training samples one hop per layer; give one fanout per layer");
  MinibatchOptions m = sampling;
  m.model = e.model;
  m.dataset = e.dataset;
  m.device = e.device;
  m.seed = e.seed;
  m.precision = e.precision;
  m.cache_dir = e.cache_dir;
  m.predictions = e.predictions;
  m.checkpoint = e.checkpoint;
  m.checkpoint_every = e.checkpoint_every;
  m.resume = e.resume;
  m.epochs = settings.epochs;
  m.learning_rate = settings.learning_rate;
  m.weight_decay = settings.weight_decay;
  m.hidden = integer_value(h.at("hidden"), "hidden", context);
  m.dropout = number_value(h.at("dropout"), "dropout", context);
  if (const auto aggregator = h.find("aggregator"); aggregator != h.end()) m.aggregator = aggregator->second;
  if (const auto heads = h.find("heads"); heads != h.end()) m.heads = integer_value(heads->second, "heads", context);
  if (const auto heads = h.find("output_heads"); heads != h.end()) {
    m.output_heads = integer_value(heads->second, "output_heads", context);
  }
  m.row_normalize_features = e.row_normalize_features.value_or(entry.feature_transform ==
                                                               graph_io::FeatureTransform::RowNormalize);
  return m;
}

void validate_minibatch_options(const MinibatchOptions& o) {
  SGNN_CHECK(!o.dataset.empty(), "mini-batch experiment: no dataset");
  (void)Device::parse(o.device);
  SGNN_CHECK(o.batch_size >= 1, "--batch-size must be positive, got ", o.batch_size);
  sampling::SamplerOptions sampler;
  sampler.fanouts = o.fanouts;
  sampling::check_sampler_options(sampler);
  SGNN_CHECK(o.epochs >= 1 && o.hidden >= 1 && o.eval_every >= 1 && o.eval_from >= 1 && o.inference_chunk >= 1 &&
                 o.pipeline_depth >= 1,
             "mini-batch experiment: epochs, hidden, eval_every, eval_from, inference_chunk and pipeline_depth must "
             "be positive");
  SGNN_CHECK(o.feature_cache_bytes >= 0, "--feature-cache must not be negative");
  SGNN_CHECK(o.train_nodes >= 0, "--train-nodes must not be negative");
  SGNN_CHECK(o.dropout >= 0 && o.dropout < 1, "--dropout must be in [0, 1), got ", o.dropout);
  SGNN_CHECK(o.heads >= 1 && o.output_heads >= 1, "--heads and --output-heads must be positive, got ", o.heads,
             " and ", o.output_heads);
  (void)parse_sage_aggregator(o.aggregator);
  SGNN_CHECK(o.learning_rate > 0 && o.weight_decay >= 0, "--lr must be positive and --weight-decay non-negative");
  for (const std::string* residence : {&o.graph_residence, &o.feature_residence}) {
    SGNN_CHECK(*residence == "auto" || *residence == "device" || *residence == "host", "residence \"", *residence,
               "\": expected auto, device or host");
  }
  if (!o.predictions.empty()) require_output_path(o.predictions, "--predictions");
  if (!o.checkpoint.empty()) require_output_path(o.checkpoint, "--checkpoint");
  SGNN_CHECK(o.checkpoint_every >= 1, "--checkpoint-every must be at least 1, got ", o.checkpoint_every);
  SGNN_CHECK(o.resume.empty() || std::filesystem::is_regular_file(o.resume), "--resume ", o.resume,
             ": no such file");
  SGNN_CHECK(o.predictions.empty() || o.predictions != o.checkpoint, "--predictions and --checkpoint name the same file");
}

std::unique_ptr<BlockModel> make_block_model(const std::string& kind, const BlockModelConfig& config,
                                             const std::string& aggregator, Generator& generator) {
  return block_model_kind(kind).make(config, aggregator, generator);
}

bool block_model_self_loops(const std::string& kind) { return block_model_kind(kind).self_loops; }

Csr minibatch_graph(const graph_io::Dataset& dataset, Device device, bool self_loops) {
  if (dataset.csr.indptr.defined()) {
    SGNN_CHECK(!self_loops, "mini-batch training with self loops in the sampling graph (GAT) needs the dataset's "
               "edges; \"", dataset.name, "\" comes with a prebuilt CSR only (", dataset.source, ")");
    return dataset.csr;
  }
  graph_io::PrepareOptions prepare;
  prepare.symmetrize = true;
  prepare.self_loops = self_loops ? graph_io::SelfLoops::Add : graph_io::SelfLoops::Remove;
  prepare.duplicates = graph_io::Duplicates::Drop;
  prepare.normalization = graph_io::Normalization::None;
  prepare.edge_map = false;
  prepare.device = device;
  graph_io::EdgeList edges = dataset.edges;
  edges.weight = Tensor();  // mean aggregation ignores edge weights
  return graph_io::prepare_adjacency(edges, prepare).csr;
}



namespace {

// Both overloads (a factory's run takes no checkpoint and no resume: its
// model cannot be described).
MinibatchResult run_minibatch(const MinibatchOptions& options, const BlockModelFactory& make_model,
                              const MinibatchHooks& hooks);

}  // namespace

MinibatchResult run_minibatch_experiment(const MinibatchOptions& options, const MinibatchHooks& hooks) {
  // The options (the aggregator among them) are validated by run_minibatch, before the dataset loads.
  const BlockModelKind& kind = block_model_kind(options.model);
  MinibatchOptions own = options;
  own.self_loops = options.self_loops || kind.self_loops;  // GAT samples from a graph with loops
  return run_minibatch(
      own,
      [&own, &kind](const BlockModelConfig& config, Generator& generator) {
        return kind.make(config, own.aggregator, generator);
      },
      hooks);
}

MinibatchResult run_minibatch_experiment(const MinibatchOptions& options, const BlockModelFactory& make_model,
                                         const MinibatchHooks& hooks) {
  SGNN_CHECK(options.checkpoint.empty() && options.resume.empty(),
             options.checkpoint.empty() ? "--resume" : "--checkpoint",
             ": a model of a BlockModelFactory cannot be rebuilt from a file "
             "(checkpoints hold the built-in models, ", "sage, gcn and gat); save its parameters from your program");
  return run_minibatch(options, make_model, hooks);
}

namespace {

MinibatchResult run_minibatch(const MinibatchOptions& options, const BlockModelFactory& make_model,
                              const MinibatchHooks& hooks) {
  validate_minibatch_options(options);
  SGNN_CHECK(make_model != nullptr, "run_minibatch_experiment: no model factory");
  const Device device = Device::parse(options.device);
  require_available(device);
  MinibatchResult result;
  result.options = options;
  result.device = device.str();
  result.precision = precision_name(options.precision);
  const Clock::time_point start = Clock::now();

  graph_io::LoadOptions load;
  load.cache_dir = options.cache_dir;
  graph_io::Dataset dataset = graph_io::load_dataset(options.dataset, load);
  require_node_classification(dataset);
  result.load_seconds = seconds_since(start);
  result.dataset = dataset.name;
  result.dataset_source = dataset.source;
  result.nodes = dataset.num_nodes();
  result.features = dataset.features.size(1);
  result.classes = dataset.num_classes;
  const Tensor train_index =
      options.train_nodes > 0 && options.train_nodes < dataset.train_index.numel()
          ? dataset.train_index.narrow_rows(0, options.train_nodes)
          : dataset.train_index;
  result.train_nodes = train_index.numel();
  memory::reset_peak(device);

  // The device budget the graph and the features share; the rest is training's.
  int64_t budget = options.device_memory_limit;
  if (budget < 0) budget = device.is_cuda() ? memory::free_bytes(device).value_or(0) / 2 : 0;
  const Csr csr = minibatch_graph(dataset,
                               device.is_cuda() && options.graph_residence != "host" &&
                                       dataset.edges.num_edges() * 16 <= budget
                                   ? device
                                   : Device::cpu(),
                               options.self_loops);
  result.edges = csr.nnz;
  const sampling::Residence graph_residence =
      device.is_cpu() ? sampling::Residence::Device
                      : resolve_residence(options.graph_residence, sampling::csr_bytes(csr), budget);
  const auto graph = std::make_shared<const sampling::SamplingGraph>(csr, device, graph_residence);

  const DType dtype = activation_dtype(options.precision);
  const Tensor features = options.row_normalize_features
                              ? graph_io::apply_feature_transform(dataset.features, graph_io::FeatureTransform::RowNormalize,
                                                                  DType::Float32)
                              : dataset.features;
  sampling::FeatureStoreOptions feature_options;
  feature_options.dtype = dtype;
  feature_options.cache_bytes = options.feature_cache_bytes;
  const int64_t feature_bytes = features.size(0) * features.size(1) * static_cast<int64_t>(dtype_size(dtype));
  feature_options.residence = device.is_cpu() ? sampling::Residence::Device
                                              : resolve_residence(options.feature_residence, feature_bytes, budget);
  if (feature_options.residence == sampling::Residence::Device && options.feature_cache_bytes > 0) {
    note(hooks, result, "--feature-cache: the features are on the device already; no cache is kept");
  }
  const std::vector<int64_t> degrees =
      feature_options.residence == sampling::Residence::Host && options.feature_cache_bytes > 0 ? graph->degrees()
                                                                                                : std::vector<int64_t>{};
  const sampling::FeatureStore feature_store(features, device, feature_options, degrees);
  sampling::FeatureStoreOptions label_options;
  label_options.dtype = DType::Int32;
  const sampling::FeatureStore label_store(dataset.labels, device, label_options);
  result.graph_residence = sampling::residence_name(graph->residence());
  result.feature_residence = sampling::residence_name(feature_store.residence());
  result.cached_feature_rows = feature_store.cached_rows();

  require_evaluation_fits(options, result.nodes, dtype, device.is_cuda() ? std::max<int64_t>(budget, 0) : -1);
  sampling::SamplerOptions sampler_options;
  sampler_options.fanouts = options.fanouts;
  sampler_options.replace = options.replace;
  sampler_options.seed = options.seed;
  const sampling::NeighborSampler sampler(graph, sampler_options);

  Generator generator(options.seed);
  BlockModelConfig config;
  config.in_features = result.features;
  config.classes = result.classes;
  config.hidden = options.hidden;
  config.layers = static_cast<int64_t>(options.fanouts.size());
  config.dropout = options.dropout;
  config.heads = options.heads;
  config.output_heads = options.output_heads;
  config.precision = options.precision;
  const std::unique_ptr<BlockModel> made = make_model(config, generator);
  SGNN_CHECK(made != nullptr, "run_minibatch_experiment: the model factory returned no model");
  BlockModel& model = *made;
  const int64_t outputs = model.num_layers() > 0 ? model.out_width(model.num_layers() - 1) : 0;
  SGNN_CHECK(model.num_layers() == config.layers && model.in_features() == config.in_features &&
                 outputs == config.classes,
             "run_minibatch_experiment: the factory's model has ", model.num_layers(), " layers, ",
             model.in_features(), " inputs and ", outputs, " outputs; the run needs ",
             config.layers, " (one per fanout), ", config.in_features, " and ", config.classes, " (the dataset's)");
  model.set_precision(config.precision);  // the factory's model computes in the run's precision too
  model.to(device);
  ops::AdamHyperparameters adam;
  adam.learning_rate = options.learning_rate;
  Adam optimizer(model.parameter_groups(options.weight_decay), adam);

  MinibatchData data;
  data.sampler = &sampler;
  data.features = &feature_store;
  data.labels = &label_store;
  data.train_index = train_index;
  data.valid_index = dataset.valid_index;
  data.test_index = dataset.test_index;
  MinibatchTrainerOptions trainer_options;
  trainer_options.epochs = options.epochs;
  trainer_options.batch_size = options.batch_size;
  trainer_options.seed = options.seed;
  trainer_options.evaluate = options.evaluate;
  trainer_options.evaluate_train = options.evaluate_train;
  trainer_options.eval_every = options.eval_every;
  trainer_options.eval_from = options.eval_from;
  trainer_options.inference.chunk_rows = options.inference_chunk;
  trainer_options.inference.device_budget_bytes = device.is_cuda() ? std::max<int64_t>(budget, 0) : -1;
  trainer_options.pipeline_depth = options.pipeline_depth;
  MinibatchTrainer trainer(model, optimizer, data, trainer_options);
  const ModelDescription description =
      block_model_description(options.model, config, options.aggregator, options.row_normalize_features);
  if (!options.resume.empty()) {
    resume_block_checkpoint(
        graph_io::read_section_file(options.resume, "checkpoint", kOldestCheckpointVersion, kCheckpointVersion),
        description, model, optimizer, trainer, generator);
    SGNN_CHECK(trainer.epochs_done() <= options.epochs, "--resume ", options.resume, ": the checkpoint has ",
               trainer.epochs_done(), " epochs done, more than --epochs ", options.epochs);
    note(hooks, result, detail::concat("resumed from ", options.resume, " after epoch ", trainer.epochs_done()));
    if (trainer.epochs_done() == options.epochs && !options.checkpoint.empty()) {
      note(hooks, result, detail::concat("--epochs ", options.epochs, " are done already: nothing trained, no checkpoint "
                                         "written; raise --epochs to train on"));
    }
  }
  memory::synchronize(device);
  result.setup_seconds = seconds_since(start) - result.load_seconds;

  // The checkpoint is written after the epoch's record and before fit() restores the best parameters.
  const auto on_epoch = [&](const MinibatchEpochRecord& record) {
    if (!options.checkpoint.empty() && (record.epoch % options.checkpoint_every == 0 || record.epoch == options.epochs)) {
      save_block_checkpoint(options.checkpoint, model, description, optimizer, trainer.state(), generator);
      result.checkpoint = options.checkpoint;
    }
    if (hooks.on_epoch) hooks.on_epoch(record);
  };
  result.fit = trainer.fit(on_epoch, hooks.on_progress);
  result.test_accuracy = result.fit.best.test.accuracy;
  if (!options.predictions.empty()) {
    // fit() restored the best epoch's parameters: every node from its whole neighbourhood, as evaluated.
    std::vector<int32_t> every_node(static_cast<std::size_t>(result.nodes));
    std::iota(every_node.begin(), every_node.end(), 0);
    const Predictions predictions = predictions_from_logits(
        infer_layerwise(model, *graph, feature_store, Tensor::from_vector(every_node, {result.nodes}),
                        trainer_options.inference));
    write_predictions(options.predictions, predictions.probabilities, predictions.classes,
                      output_rows(result.nodes, Tensor()));
    result.predictions = options.predictions;
  }
  result.epoch_seconds_median = result.fit.epoch_seconds_median;
  std::vector<double> seeds_rates, edge_rates;
  for (const MinibatchEpochRecord& record : result.fit.history) {
    seeds_rates.push_back(record.seeds_per_second);
    edge_rates.push_back(static_cast<double>(record.sampled_edges) / std::max(record.train_seconds, 1e-9));
  }
  result.seeds_per_second = median(seeds_rates);
  result.sampled_edges_per_second = median(edge_rates);
  result.peak_device_bytes = memory::usage(device).peak_bytes;
  result.peak_host_bytes = peak_resident_bytes();
  result.feature_readers = describe_readers(feature_store);
  return result;
}

}  // namespace

std::string minibatch_json(const MinibatchResult& r, const std::string& program) {
  const MinibatchOptions& o = r.options;
  JsonWriter json;
  json.begin_object()
      .field("program", program)
      .field("framework", "sparsegnn")
      .field("status", "ok")
      .field("model", o.model)
      .field("training", "minibatch")
      .field("dataset", r.dataset)
      .field("dataset_source", r.dataset_source)
      .field("device", r.device)
      .field("precision", r.precision)
      .field("nodes", r.nodes)
      .field("edges", r.edges)
      .field("features", r.features)
      .field("classes", r.classes)
      .field("train_nodes", r.train_nodes)
      .field("batch_size", o.batch_size)
      .field("replace", o.replace)
      .field("hidden", o.hidden)
      .field("layers", static_cast<int64_t>(o.fanouts.size()))
      .field("dropout", static_cast<double>(o.dropout))
      .field("lr", static_cast<double>(o.learning_rate))
      .field("weight_decay", static_cast<double>(o.weight_decay))
      .field("row_normalize", o.row_normalize_features)
      .field("epochs", o.epochs)
      .field("seed", static_cast<int64_t>(o.seed))
      .field("graph_residence", r.graph_residence)
      .field("feature_residence", r.feature_residence)
      .field("feature_cache_bytes", o.feature_cache_bytes)
      .field("cached_feature_rows", r.cached_feature_rows)
      .field("feature_readers", r.feature_readers)
      .field("best_epoch", r.fit.best_epoch)
      .field("test_accuracy", r.test_accuracy)
      .field("validation_accuracy", r.fit.best.validation.accuracy)
      .field("epoch_seconds_median", r.epoch_seconds_median)
      .field("seeds_per_second", r.seeds_per_second)
      .field("sampled_edges_per_second", r.sampled_edges_per_second)
      .field("train_seconds", r.fit.train_seconds)
      .field("load_seconds", r.load_seconds)
      .field("setup_seconds", r.setup_seconds)
      .field("peak_device_bytes", r.peak_device_bytes)
      .field("peak_host_bytes", r.peak_host_bytes);
  for (const auto& [name, file] : {std::pair{"predictions", &r.predictions}, {"checkpoint", &r.checkpoint}}) {
    if (file->empty()) {
      json.key(name).null();
    } else {
      json.field(name, *file);
    }
  }
  if (o.model == "sage") json.field("aggregator", o.aggregator);  // GraphSAGE's alone
  if (o.model == "gat") json.field("heads", o.heads).field("output_heads", o.output_heads);
  json.key("fanouts").begin_array();
  for (const int64_t fanout : o.fanouts) json.value(fanout);
  json.end_array();
  json.key("epochs_run").begin_array();
  for (const MinibatchEpochRecord& e : r.fit.history) {
    json.begin_object()
        .field("epoch", e.epoch)
        .field("train_loss", e.train_loss)
        .field("train_seconds", e.train_seconds)
        .field("seeds_per_second", e.seeds_per_second)
        .field("sampled_edges", e.sampled_edges)
        .field("sampling_seconds", e.stages.sampling)
        .field("gathering_seconds", e.stages.gathering)
        .field("waiting_seconds", e.stages.waiting)
        .field("evaluated", e.evaluated);
    if (e.evaluated) {
      json.field("train_accuracy", e.evaluation.train.accuracy)
          .field("validation_accuracy", e.evaluation.validation.accuracy)
          .field("test_accuracy", e.evaluation.test.accuracy)
          .field("eval_seconds", e.eval_seconds);
    }
    json.end_object();
  }
  json.end_array();
  json.key("notes").begin_array();
  for (const std::string& text : r.notes) json.value(text);
  json.end_array();
  json.end_object();
  return json.str();
}

std::string format_minibatch_progress(const MinibatchProgress& p, int64_t epochs) {
  char line[160];
  std::snprintf(line, sizeof(line), "epoch %*lld/%lld  batch %lld/%lld  loss %.4f  %.0f seeds/s  %.1f s",
                static_cast<int>(std::to_string(epochs).size()), static_cast<long long>(p.epoch),
                static_cast<long long>(epochs), static_cast<long long>(p.batch), static_cast<long long>(p.batches),
                p.mean_loss, static_cast<double>(p.seeds) / std::max(p.seconds, 1e-9), p.seconds);
  return line;
}

std::string format_minibatch_epoch(const MinibatchEpochRecord& r, int64_t epochs) {
  char line[256];
  int used = std::snprintf(line, sizeof(line), "epoch %*lld/%lld  loss %.4f  %lld batches  %.0f seeds/s  %.2f s",
                           static_cast<int>(std::to_string(epochs).size()), static_cast<long long>(r.epoch),
                           static_cast<long long>(epochs), r.train_loss, static_cast<long long>(r.batches),
                           r.seeds_per_second, r.train_seconds);
  if (r.evaluated && used > 0 && static_cast<std::size_t>(used) < sizeof(line)) {
    std::snprintf(line + used, sizeof(line) - static_cast<std::size_t>(used),
                  "  train %.4f  val %.4f  test %.4f (eval %.2f s)", r.evaluation.train.accuracy,
                  r.evaluation.validation.accuracy, r.evaluation.test.accuracy, r.eval_seconds);
  }
  return line;
}

}  // namespace sgnn::training
