#include "training/block_checkpoint.hpp"

#include "training/minibatch_experiment.hpp"

namespace sgnn::training {

namespace {

constexpr const char* kCheckpointKind = "checkpoint";  // shared with full-graph checkpoints (checkpoint.cpp)
constexpr uint32_t kBlockCheckpointVersion = 2;
constexpr const char* kTrainingKey = "training";
constexpr const char* kMinibatch = "minibatch";
constexpr const char* kEpochsKey = "minibatch.epochs";
constexpr const char* kParametersEpochKey = "minibatch.parameters_epoch";

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
                           const ModelDescription& description, BlockCheckpointEpochs epochs) {
  (void)block_model_self_loops(description.kind);  // InvalidArgument for a kind that is not a built-in block model
  graph_io::SectionFile file;
  file.kind = kCheckpointKind;
  file.kind_version = kBlockCheckpointVersion;
  file.metadata = description_metadata(description);
  file.metadata[kTrainingKey] = kMinibatch;
  file.metadata[kEpochsKey] = std::to_string(epochs.epochs);
  file.metadata[kParametersEpochKey] = std::to_string(epochs.parameters_epoch);
  for (const auto& [name, parameter] : model.named_parameters()) file.add("param." + name, parameter);
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

}  // namespace sgnn::training
