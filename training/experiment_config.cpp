#include "training/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "training/output/json.hpp"

namespace sgnn::training {

namespace {

Monitor parse_monitor(const std::string& text) {
  for (const Monitor monitor :
       {Monitor::ValidationAccuracy, Monitor::ValidationLoss, Monitor::ValidationLossAndAccuracy}) {
    if (text == monitor_name(monitor)) return monitor;
  }
  throw InvalidArgument("--monitor must be accuracy, loss or loss+accuracy, got \"" + text + "\"");
}

const std::string& setting(const std::map<std::string, std::string>& hyperparameters, const std::string& name) {
  const auto found = hyperparameters.find(name);
  SGNN_CHECK(found != hyperparameters.end(), "training_settings: no \"", name,
             "\" among the hyperparameters (resolve them with resolve_hyperparameters)");
  return found->second;
}

}  // namespace

TrainingSettings training_settings(const std::map<std::string, std::string>& hyperparameters) {
  const auto integer = [&](const char* name) { return integer_value(setting(hyperparameters, name), name, "training"); };
  const auto number = [&](const char* name) { return number_value(setting(hyperparameters, name), name, "training"); };
  TrainingSettings settings;
  settings.epochs = integer("epochs");
  settings.patience = integer("patience");
  settings.learning_rate = number("lr");
  settings.weight_decay = number("weight_decay");
  settings.monitor = parse_monitor(setting(hyperparameters, "monitor"));
  return settings;
}

void validate_options(const ExperimentOptions& options) {
  SGNN_CHECK(!options.dataset.empty(), "--dataset is required (a name such as cora, or a path)");
  (void)resolve_hyperparameters(model_entry(options.model), options.dataset, options.hyperparameters);
  SGNN_CHECK(options.runs >= 1, "--runs must be at least 1, got ", options.runs);
  SGNN_CHECK(options.spmm == "csr" || options.spmm == "hrpb" || options.spmm == "auto",
             "--spmm must be csr, hrpb or auto, got \"", options.spmm, "\"");
  (void)Device::parse(options.device);  // throws with the accepted spellings
  SGNN_CHECK(!(options.gradient_ranges && options.check_numerics),
             "--gradient-ranges and --check-numerics both watch every gradient; use one at a time");
  SGNN_CHECK(options.runs == 1 || (options.checkpoint.empty() && options.resume.empty()),
             "--checkpoint and --resume apply to a single run; drop --runs ", options.runs);
  SGNN_CHECK(options.runs == 1 || (options.predictions.empty() && options.embeddings.empty()),
             "--predictions and --embeddings apply to a single run; drop --runs ", options.runs);
  const StepCapture capture = parse_step_capture(options.cuda_graph);
  SGNN_CHECK(capture != StepCapture::On || Device::parse(options.device).is_cuda(),
             "--cuda-graph on needs a CUDA device (--device cuda), got --device ", options.device);
  SGNN_CHECK(options.checkpoint_every >= 1, "--checkpoint-every must be at least 1, got ", options.checkpoint_every);
}

std::pair<double, double> mean_and_std(const std::vector<double>& values) {
  if (values.empty()) return {0.0, 0.0};
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

std::string experiment_json(const ExperimentResult& result, const std::string& program) {
  JsonWriter json;
  json.begin_object()
      .field("program", program)
      .field("framework", "sparsegnn")
      .field("status", "ok")
      .field("model", result.model)
      .field("dataset", result.dataset)
      .field("dataset_source", result.dataset_source)
      .field("device", result.device)
      .field("spmm", result.spmm)
      .field("runs", static_cast<int64_t>(result.runs.size()))
      .field("test_accuracy", result.test_accuracy)
      .field("test_accuracy_std", result.test_accuracy_std)
      .field("test_macro_f1", result.test_macro_f1)
      .field("epoch_ms_median", result.epoch_ms_median)
      .field("train_seconds", result.train_seconds)
      .field("peak_device_bytes", result.peak_device_bytes)
      .field("preparation_peak_device_bytes", result.preparation_peak_device_bytes)
      .field("training_peak_device_bytes", result.training_peak_device_bytes)
      .field("read_ms", result.read_ms)
      .field("preprocess_ms", result.preprocess_ms)
      .field("cache_hit", result.cache_hit)
      .field("cuda_graph", result.cuda_graph)
      .field("step_captured", result.step_captured)
      .field("deterministic", result.deterministic)
      .field("precision", result.precision)
      .field("feature_transform", result.feature_transform)
      .field("nodes", result.nodes)
      .field("edges", result.edges)
      .field("features", result.features)
      .field("classes", result.classes);
  for (const auto& [name, file] : {std::pair{"predictions", &result.predictions}, {"embeddings", &result.embeddings}}) {
    if (file->empty()) {
      json.key(name).null();
    } else {
      json.field(name, *file);
    }
  }
  const ExperimentResult::Phases& p = result.phases;
  json.key("phases")
      .begin_object()
      .field("processed_hit", p.processed_hit)
      .field("load_ms", p.load_ms)
      .field("adjacency_cache_hit", p.adjacency_cache_hit)
      .field("adjacency_ms", p.adjacency_ms)
      .field("upload_ms", p.upload_ms)
      .field("hrpb_ms", p.hrpb_ms)
      .field("tuning_ms", p.tuning_ms)
      .field("kernel_choices_stored", p.kernel_choices_stored)
      .field("first_epoch_ms", p.first_epoch_ms)
      .field("start_to_first_epoch_s", p.start_to_first_epoch_s)
      .end_object();
  // Each in its type: integers and numbers as JSON numbers, switches as booleans, choices as strings.
  json.key("hyperparameters").begin_object();
  const ModelEntry* entry = find_model_entry(result.model);
  for (const auto& [name, value] : result.hyperparameters) {
    HyperparameterType type = HyperparameterType::Choice;
    for (const Hyperparameter& h : entry != nullptr ? entry->hyperparameters : std::vector<Hyperparameter>{}) {
      if (h.name == name) type = h.type;
    }
    switch (type) {
      case HyperparameterType::Integer: json.field(name, integer_value(value, name, result.model)); break;
      case HyperparameterType::Number: json.field(name, static_cast<double>(number_value(value, name, result.model))); break;
      case HyperparameterType::Switch: json.field(name, switch_value(value, name, result.model)); break;
      case HyperparameterType::Choice: json.field(name, value); break;
    }
  }
  json.end_object();
  json.key("per_run").begin_array();
  for (const RunSummary& run : result.runs) {
    json.begin_object()
        .field("seed", static_cast<int64_t>(run.seed))
        .field("test_accuracy", run.result.best.test.accuracy)
        .field("test_macro_f1", run.result.best.test.macro_f1)
        .field("validation_accuracy", run.result.best.validation.accuracy)
        .field("best_epoch", run.result.best_epoch)
        .field("epochs", static_cast<int64_t>(run.result.history.size()))
        .field("stopped_early", run.result.stopped_early)
        .field("epoch_ms_median", run.result.epoch_ms_median)
        .field("step_captured", run.result.step_captured)
        .field("train_seconds", run.result.train_seconds)
        .end_object();
  }
  json.end_array();
  if (!result.gradient_ranges.empty()) {
    json.key("gradient_ranges").begin_object();  // run 1's, per layer
    for (const auto& [layer, range] : result.gradient_ranges) {
      json.key(layer.empty() ? "(none)" : layer)
          .begin_object()
          .field("smallest", range.smallest)
          .field("largest", range.largest)
          .field("zeros", range.zeros)
          .field("values", range.values)
          .end_object();
    }
    json.end_object();
  }
  json.key("history").begin_array();  // the first run's curves
  if (!result.runs.empty()) {
    for (const EpochRecord& r : result.runs.front().result.history) {
      json.begin_object()
          .field("epoch", r.epoch)
          .field("train_loss", r.train_loss)
          .field("train_accuracy", r.train_accuracy)
          .field("validation_loss", r.validation_loss)
          .field("validation_accuracy", r.validation_accuracy)
          .field("epoch_ms", r.epoch_ms)
          .end_object();
    }
  }
  json.end_array();
  json.key("notes").begin_array();
  for (const std::string& text : result.notes) json.value(text);
  json.end_array();
  json.end_object();
  return json.str();
}

}  // namespace sgnn::training
