#include "training/block_checkpoint.hpp"

#include <cmath>

#include "training/checkpoint_entries.hpp"
#include "training/minibatch_experiment.hpp"

namespace sgnn::training {

namespace {

constexpr const char* kCheckpointKind = "checkpoint";  // shared with full-graph checkpoints (checkpoint.cpp)
constexpr uint32_t kBlockCheckpointVersion = 2;
constexpr const char* kTrainingKey = "training";
constexpr const char* kMinibatch = "minibatch";
constexpr const char* kEpochsKey = "minibatch.epochs";
constexpr const char* kParametersEpochKey = "minibatch.parameters_epoch";
constexpr const char* kBatchesDrawn = "minibatch.batches_drawn";
constexpr const char* kBestEpoch = "minibatch.best_epoch";
constexpr const char* kHistory = "minibatch.history";

using namespace checkpoint_entries;

// An epoch's record as doubles, in this order (kHistoryFields of them).
constexpr std::size_t kHistoryFields = 21;
std::vector<double> record_values(const MinibatchEpochRecord& r) {
  const Evaluation& e = r.evaluation;
  return {static_cast<double>(r.epoch), r.train_loss, static_cast<double>(r.batches), static_cast<double>(r.seeds),
          static_cast<double>(r.sampled_edges), r.train_seconds, r.seeds_per_second, r.stages.sampling,
          r.stages.gathering, r.stages.waiting, r.evaluated ? 1.0 : 0.0, r.eval_seconds, e.train.loss, e.train.accuracy,
          e.train.macro_f1, e.validation.loss, e.validation.accuracy, e.validation.macro_f1, e.test.loss,
          e.test.accuracy, e.test.macro_f1};
}

// The history entry's records; IoError for a malformed one (a count that is
// not a whole number >= 0 would be undefined to convert: a damaged file may
// hold any double there).
std::vector<MinibatchEpochRecord> history_records(const graph_io::SectionFile& contents) {
  const std::vector<double> values = double_entry(contents, kHistory, contents.source);
  if (values.size() % kHistoryFields != 0) {
    throw IoError(contents.source, 0, detail::concat("entry \"", kHistory, "\" malformed: ", values.size(),
                                                     " values, not records of ", kHistoryFields));
  }
  const auto count = [&](double value) {
    if (!(value >= 0.0 && value <= 9.0e15 && value == std::floor(value))) {
      throw IoError(contents.source, 0, detail::concat("entry \"", kHistory, "\" malformed: count ", value));
    }
    return static_cast<int64_t>(value);
  };
  std::vector<MinibatchEpochRecord> records;
  for (std::size_t i = 0; i < values.size(); i += kHistoryFields) {
    const double* v = values.data() + i;
    MinibatchEpochRecord r;
    r.epoch = count(v[0]);
    r.train_loss = v[1];
    r.batches = count(v[2]);
    r.seeds = count(v[3]);
    r.sampled_edges = count(v[4]);
    r.train_seconds = v[5];
    r.seeds_per_second = v[6];
    r.stages = {v[7], v[8], v[9]};
    r.evaluated = v[10] != 0.0;
    r.eval_seconds = v[11];
    r.evaluation.train = {v[12], v[13], v[14]};
    r.evaluation.validation = {v[15], v[16], v[17]};
    r.evaluation.test = {v[18], v[19], v[20]};
    records.push_back(r);
  }
  return records;
}

bool has_hyperparameter(const ModelDescription& d, const char* name) { return d.hyperparameters.count(name) > 0; }

// The model `d` describes, with fresh parameters; InvalidArgument when it describes none.
std::unique_ptr<BlockModel> make_described(const ModelDescription& d, Generator& generator) {
  BlockModelConfig config;
  config.in_features = d.in_features;
  config.classes = d.classes;
  config.hidden = d.integer("hidden");
  config.layers = d.integer("layers");
  config.dropout = d.number("dropout");
  if (has_hyperparameter(d, "heads")) config.heads = d.integer("heads");
  if (has_hyperparameter(d, "output_heads")) config.output_heads = d.integer("output_heads");
  config.precision = d.precision;
  const std::string aggregator = has_hyperparameter(d, "aggregator") ? d.text("aggregator") : "mean";
  return make_block_model(d.kind, config, aggregator, generator);
}

int64_t epoch_value(const graph_io::SectionFile& contents, const char* key) {
  const std::string& text = contents.meta(key);
  try {
    std::size_t used = 0;
    const int64_t value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw IoError(contents.source, 0, detail::concat("malformed ", key, " \"", text, "\": expected a count >= 0"));
}

}  // namespace

ModelDescription block_model_description(const std::string& kind, const BlockModelConfig& config,
                                         const std::string& aggregator, bool row_normalize_features) {
  ModelDescription d;
  d.kind = kind;
  d.in_features = config.in_features;
  d.classes = config.classes;
  d.hyperparameters = {{"hidden", std::to_string(config.hidden)},
                       {"layers", std::to_string(config.layers)},
                       {"dropout", std::to_string(config.dropout)}};
  if (kind == "sage") d.hyperparameters["aggregator"] = aggregator;
  if (kind == "gat") {
    d.hyperparameters["heads"] = std::to_string(config.heads);
    d.hyperparameters["output_heads"] = std::to_string(config.output_heads);
  }
  d.feature_transform =
      row_normalize_features ? graph_io::FeatureTransform::RowNormalize : graph_io::FeatureTransform::None;
  d.precision = config.precision;
  return d;
}

std::string block_model_summary(const ModelDescription& d) {
  std::string layers = std::to_string(d.in_features);
  const auto hyperparameter = [&d](const char* name) {
    const auto found = d.hyperparameters.find(name);
    return found == d.hyperparameters.end() ? std::string("?") : found->second;
  };
  const std::string hidden = hyperparameter("hidden");
  const std::string heads = d.hyperparameters.count("heads") > 0 ? hyperparameter("heads") + " x " : "";
  const int64_t count = d.hyperparameters.count("layers") > 0 ? std::atoll(hyperparameter("layers").c_str()) : 0;
  for (int64_t layer = 1; layer < count; ++layer) layers += " -> " + heads + hidden;
  layers += " -> " + std::to_string(d.classes);
  const std::string aggregator =
      d.hyperparameters.count("aggregator") > 0 ? ", " + hyperparameter("aggregator") + " aggregator" : "";
  return detail::concat(d.kind, " (mini-batch) ", layers, aggregator, ", ",
                        graph_io::feature_transform_name(d.feature_transform), " features, ",
                        precision_name(d.precision));
}

void save_block_checkpoint(const std::filesystem::path& path, const BlockModel& model,
                           const ModelDescription& description, const Optimizer& optimizer,
                           const MinibatchTrainerState& trainer, const Generator& generator) {
  (void)block_model_self_loops(description.kind);  // InvalidArgument for a kind that is not a built-in block model
  const auto named = model.named_parameters();
  SGNN_CHECK(trainer.best_parameters.empty() || trainer.best_parameters.size() == named.size(),
             "save_block_checkpoint: ", trainer.best_parameters.size(), " best parameters for a model of ",
             named.size());
  graph_io::SectionFile file;
  file.kind = kCheckpointKind;
  file.kind_version = kBlockCheckpointVersion;
  file.metadata = description_metadata(description);
  file.metadata[kTrainingKey] = kMinibatch;
  file.metadata[kEpochsKey] = std::to_string(trainer.epoch);
  file.metadata[kParametersEpochKey] = std::to_string(trainer.best_epoch > 0 ? trainer.best_epoch : trainer.epoch);
  file.metadata[kBatchesDrawn] = std::to_string(trainer.batches_drawn);
  file.metadata[kBestEpoch] = std::to_string(trainer.best_epoch);
  // The best epoch's parameters predict (the last ones where nothing was evaluated); the last ones continue.
  for (std::size_t i = 0; i < named.size(); ++i) {
    file.add("param." + named[i].first, trainer.best_parameters.empty() ? named[i].second : trainer.best_parameters[i]);
  }
  for (const auto& [name, parameter] : named) file.add("last." + name, parameter);
  const std::vector<Tensor> optimizer_state = optimizer.state();
  for (std::size_t i = 0; i < optimizer_state.size(); ++i) file.add("optimizer." + std::to_string(i), optimizer_state[i]);
  std::vector<double> history;
  for (const MinibatchEpochRecord& record : trainer.history) {
    const std::vector<double> values = record_values(record);
    history.insert(history.end(), values.begin(), values.end());
  }
  file.add(kHistory, double_bits(history));
  file.add("generator", generator_state(generator));
  graph_io::write_section_file(path, file);
}

bool is_block_checkpoint(const graph_io::SectionFile& contents) {
  const auto training = contents.metadata.find(kTrainingKey);
  return training != contents.metadata.end() && training->second == kMinibatch;
}

TrainedBlockModel load_block_checkpoint(const graph_io::SectionFile& contents) {
  const std::string& name = contents.source;
  if (!is_block_checkpoint(contents)) {
    throw IoError(name, 0, "holds a full-graph model, not a mini-batch one (training::load_trained_model reads it)");
  }
  TrainedBlockModel trained;
  trained.description = description_from_metadata(contents.metadata, name);
  trained.epochs = {epoch_value(contents, kEpochsKey), epoch_value(contents, kParametersEpochKey)};
  trained.generator = std::make_unique<Generator>(0);
  try {
    trained.model = make_described(trained.description, *trained.generator);
  } catch (const InvalidArgument& error) {
    throw IoError(name, 0, detail::concat("describes no model this build makes (", error.what(), ")"));
  }
  trained.model->eval();
  // The file's parameters must be exactly those of the model it describes.
  const auto named = trained.model->named_parameters();
  std::size_t stored = 0;
  for (const auto& [section, tensor] : contents.sections) stored += section.starts_with("param.") ? std::size_t{1} : std::size_t{0};
  if (stored != named.size()) {
    throw IoError(name, 0, detail::concat("holds ", stored, " parameters, the model it describes (",
                                          block_model_summary(trained.description), ") has ", named.size()));
  }
  for (const auto& [parameter_name, parameter] : named) {
    const std::string section = "param." + parameter_name;
    if (!contents.has(section)) throw IoError(name, 0, detail::concat("no parameter \"", parameter_name, "\""));
    const Tensor& value = contents.at(section);
    if (value.shape() != parameter.shape() || value.dtype() != parameter.dtype()) {
      throw IoError(name, 0, detail::concat("parameter \"", parameter_name, "\" is ", shape_str(value.shape()), " ",
                                            dtype_name(value.dtype()), ", the model it describes has ",
                                            shape_str(parameter.shape()), " ", dtype_name(parameter.dtype())));
    }
    Tensor target = parameter;
    copy_into(target, value);
  }
  trained.model->refresh_compute_copies();
  return trained;
}

void resume_block_checkpoint(const graph_io::SectionFile& contents, const ModelDescription& description,
                             BlockModel& model, Optimizer& optimizer, MinibatchTrainer& trainer,
                             Generator& generator) {
  const std::string& name = contents.source;
  if (!is_block_checkpoint(contents)) {
    throw IoError(name, 0, "holds a full-graph model; --batch-size resumes mini-batch checkpoints only");
  }
  if (!contents.has(kHistory)) {
    throw IoError(name, 0, "holds no training state (written before mini-batch checkpoints kept it): it predicts, "
                           "it cannot resume");
  }
  const std::string difference =
      description_difference(description_from_metadata(contents.metadata, name), description);
  SGNN_CHECK(difference.empty(), "--resume ", name, ": the checkpoint's model is not this run's: ", difference);
  const auto named = model.named_parameters();
  for (const auto& [parameter_name, parameter] : named) {
    const Tensor& value = entry(contents, "last." + parameter_name, name);
    if (value.shape() != parameter.shape() || value.dtype() != parameter.dtype()) {
      throw IoError(name, 0, detail::concat("parameter \"", parameter_name, "\" is ", shape_str(value.shape()), " ",
                                            dtype_name(value.dtype()), ", the model's ", shape_str(parameter.shape()),
                                            " ", dtype_name(parameter.dtype())));
    }
  }
  MinibatchTrainerState state;
  state.epoch = epoch_value(contents, kEpochsKey);
  state.batches_drawn = static_cast<uint64_t>(epoch_value(contents, kBatchesDrawn));
  state.best_epoch = epoch_value(contents, kBestEpoch);
  state.history = history_records(contents);
  if (state.best_epoch > 0) {
    for (const auto& [parameter_name, parameter] : named) {
      state.best_parameters.push_back(entry(contents, "param." + parameter_name, name));
    }
  }
  const GeneratorState generator_saved = generator_entry(contents, name);
  // The parameters are copied last, once every check passed.
  load_optimizer_and_trainer(contents, optimizer, [&] { trainer.set_state(std::move(state)); });
  for (auto& [parameter_name, parameter] : named) {
    Tensor target = parameter;
    copy_into(target, contents.at("last." + parameter_name));
  }
  model.refresh_compute_copies();
  set_generator(generator, generator_saved);
}

}  // namespace sgnn::training
