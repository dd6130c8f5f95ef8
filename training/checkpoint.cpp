#include "training/checkpoint.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "graph_io/section_file.hpp"
#include "training/checkpoint_entries.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::training {

namespace {

using namespace checkpoint_entries;

constexpr const char* kCheckpointKind = "checkpoint";

std::vector<std::pair<std::string, Tensor>> encode_state(const TrainingState& state, const Generator& generator) {
  std::vector<std::pair<std::string, Tensor>> entries;
  entries.emplace_back("trainer.epoch", int64_scalar(state.epoch));
  entries.emplace_back("trainer.best_epoch", int64_scalar(state.best_epoch));
  entries.emplace_back("trainer.epochs_without_improvement", int64_scalar(state.epochs_without_improvement));
  entries.emplace_back("trainer.stopped_early", int64_scalar(state.stopped_early ? 1 : 0));
  entries.emplace_back("trainer.best_scores", double_bits({state.best_validation_accuracy, state.best_validation_loss}));
  std::vector<double> history;
  for (const EpochRecord& r : state.history) {
    history.insert(history.end(), {static_cast<double>(r.epoch), r.train_loss, r.train_accuracy, r.validation_loss,
                                   r.validation_accuracy, r.epoch_ms});
  }
  entries.emplace_back("trainer.history", double_bits(history));
  entries.emplace_back("generator", generator_state(generator));
  return entries;
}

// Version 2 of a described model (a model built by hand has only "model").
bool has_description(const graph_io::SectionFile& contents) {
  return contents.kind_version >= 2 && contents.metadata.contains("model.in_features");
}

constexpr const char* kBestBufferPrefix = "best_buffer.";

TrainingState decode_state(const graph_io::SectionFile& contents, const std::filesystem::path& path) {
  TrainingState state;
  state.epoch = int64_entry(contents, "trainer.epoch", path);
  state.best_epoch = int64_entry(contents, "trainer.best_epoch", path);
  state.epochs_without_improvement = int64_entry(contents, "trainer.epochs_without_improvement", path);
  state.stopped_early = int64_entry(contents, "trainer.stopped_early", path) != 0;
  const std::vector<double> scores = double_entry(contents, "trainer.best_scores", path);
  if (scores.size() != 2) throw IoError(path.string(), 0, "entry \"trainer.best_scores\" malformed");
  state.best_validation_accuracy = scores[0];
  state.best_validation_loss = scores[1];
  const std::vector<double> history = double_entry(contents, "trainer.history", path);
  if (history.size() % 6 != 0) throw IoError(path.string(), 0, "entry \"trainer.history\" malformed");
  for (std::size_t i = 0; i < history.size(); i += 6) {
    // The epoch number becomes an int64: a damaged or crafted file may hold any
    // double there (NaN, 1e233), whose conversion would be undefined (found by fuzz_checkpoint).
    if (!(history[i] >= 0.0 && history[i] <= 9.0e15 && history[i] == std::floor(history[i]))) {
      throw IoError(path.string(), 0, detail::concat("entry \"trainer.history\" malformed: epoch number ", history[i]));
    }
    state.history.push_back(EpochRecord{static_cast<int64_t>(history[i]), history[i + 1], history[i + 2],
                                        history[i + 3], history[i + 4], history[i + 5]});
  }
  state.best_parameters = numbered(contents, "best.");
  state.best_buffers = numbered(contents, kBestBufferPrefix);
  return state;
}

constexpr const char* kBufferPrefix = "buffer.";

// Why the checkpoint's buffers do not fit `model` (empty when they do): the
// same names, shapes and dtypes, none missing, none extra.
std::string buffer_mismatch(const graph_io::SectionFile& contents, const Module& model) {
  const auto named = model.named_buffers();
  const auto stored = static_cast<std::size_t>(
      std::count_if(contents.sections.begin(), contents.sections.end(),
                    [](const auto& section) { return section.first.starts_with(kBufferPrefix); }));
  if (stored != named.size()) {
    return detail::concat("the checkpoint has ", stored, " buffers, the model ", named.size(), " (another architecture?)");
  }
  for (const auto& [name, buffer] : named) {
    if (!contents.has(kBufferPrefix + name)) return detail::concat("no buffer \"", name, "\" in the checkpoint");
    const Tensor& value = contents.at(kBufferPrefix + name);
    if (value.shape() != buffer.shape() || value.dtype() != buffer.dtype()) {
      return detail::concat("buffer \"", name, "\" is ", shape_str(value.shape()), " ", dtype_name(value.dtype()),
                            " in the checkpoint, ", shape_str(buffer.shape()), " ", dtype_name(buffer.dtype()),
                            " in the model");
    }
  }
  return {};
}

// After buffer_mismatch found nothing.
void load_buffers(const graph_io::SectionFile& contents, const Module& model) {
  for (auto& [name, buffer] : model.named_buffers()) copy_into(buffer, contents.at(kBufferPrefix + name));
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Model& model, const Optimizer& optimizer,
                     const TrainingState& state, const Generator& generator) {
  graph_io::SectionFile file;
  file.kind = kCheckpointKind;
  file.kind_version = kCheckpointVersion;
  file.metadata["model"] = model.kind();
  if (model.description().described()) file.metadata = description_metadata(model.description());
  for (const auto& [name, parameter] : model.named_parameters()) file.add("param." + name, parameter);
  for (const auto& [name, buffer] : model.named_buffers()) file.add(kBufferPrefix + name, buffer);
  const std::vector<Tensor> optimizer_state = optimizer.state();
  for (std::size_t i = 0; i < optimizer_state.size(); ++i) file.add("optimizer." + std::to_string(i), optimizer_state[i]);
  for (std::size_t i = 0; i < state.best_parameters.size(); ++i) {
    file.add("best." + std::to_string(i), state.best_parameters[i]);
  }
  for (std::size_t i = 0; i < state.best_buffers.size(); ++i) {
    file.add(kBestBufferPrefix + std::to_string(i), state.best_buffers[i]);
  }
  for (auto& [name, tensor] : encode_state(state, generator)) file.add(name, tensor);
  graph_io::write_section_file(path, file);
}

void load_checkpoint(const std::filesystem::path& path, Model& model, Optimizer& optimizer, Trainer& trainer,
                     Generator& generator) {
  const graph_io::SectionFile contents =
      graph_io::read_section_file(path, kCheckpointKind, kOldestCheckpointVersion, kCheckpointVersion);
  const std::string where = path.string() + ": ";
  const std::string& kind = contents.meta("model");
  SGNN_CHECK(kind == model.kind(), where, "the checkpoint holds a ", kind, " model, not a ", model.kind());
  if (has_description(contents) && model.description().described()) {
    const std::string difference =
        description_difference(description_from_metadata(contents.metadata, path.string()), model.description());
    SGNN_CHECK(difference.empty(), where, difference);
  }
  // Validate every parameter before touching any.
  const auto named = model.named_parameters();
  const auto stored_parameters = static_cast<std::size_t>(
      std::count_if(contents.sections.begin(), contents.sections.end(),
                    [](const auto& section) { return section.first.starts_with("param."); }));
  SGNN_CHECK(stored_parameters == named.size(), where, "the checkpoint has ", stored_parameters,
             " parameters, the model ", named.size(), " (another architecture?)");
  for (const auto& [name, parameter] : named) {
    SGNN_CHECK(contents.has("param." + name), where, "no parameter \"", name, "\" in the checkpoint");
    const Tensor& stored = contents.at("param." + name);
    SGNN_CHECK(stored.shape() == parameter.shape() && stored.dtype() == parameter.dtype(), where, "parameter \"",
               name, "\" is ", shape_str(stored.shape()), " in the checkpoint, ", shape_str(parameter.shape()),
               " in the model (other sizes: --hidden, --heads, dataset?)");
  }
  const std::string buffers = buffer_mismatch(contents, model);
  SGNN_CHECK(buffers.empty(), where, buffers);
  TrainingState state = decode_state(contents, path);
  const GeneratorState generator_saved = generator_entry(contents, path);
  // Parameters are copied last, once all checks passed.
  load_optimizer_and_trainer(contents, optimizer, [&] { trainer.set_state(std::move(state)); });
  for (auto& [name, parameter] : model.named_parameters()) copy_into(parameter, contents.at("param." + name));
  load_buffers(contents, model);
  model.refresh_compute_copies();
  set_generator(generator, generator_saved);
}

const char* checkpoint_parameters_name(CheckpointParameters which) {
  return which == CheckpointParameters::Best ? "best" : "last";
}

CheckpointParameters parse_checkpoint_parameters(const std::string& text) {
  if (text == "best") return CheckpointParameters::Best;
  if (text == "last") return CheckpointParameters::Last;
  throw InvalidArgument("checkpoint parameters must be best or last, got \"" + text + "\"");
}

TrainedModel load_trained_model(const std::filesystem::path& path, CheckpointParameters which) {
  return load_trained_model(
      graph_io::read_section_file(path, kCheckpointKind, kOldestCheckpointVersion, kCheckpointVersion), which);
}

TrainedModel load_trained_model(const graph_io::SectionFile& contents, CheckpointParameters which) {
  const std::filesystem::path path = contents.source;
  const std::string name = path.string();
  const std::string& kind = contents.meta("model");
  if (contents.kind_version < 2) {
    const std::string epochs = contents.has("trainer.epoch")
                                   ? std::to_string(int64_entry(contents, "trainer.epoch", path))
                                   : std::string("<the epochs it ran>");
    throw IoError(name, 0, detail::concat(
        "checkpoint format version ", contents.kind_version, " (an older sparsegnn) does not describe its ", kind,
        " model, so it cannot be rebuilt from the file alone. Convert it by resuming it for no more epochs with the "
        "program and flags that trained it; the new checkpoint describes the model: sgnn_train --model ", kind,
        " --dataset <its dataset> <its flags> --resume ", name, " --epochs ", epochs, " --checkpoint <new file>"));
  }
  if (contents.metadata.contains("training") && contents.metadata.at("training") == "minibatch") {
    throw IoError(name, 0, "holds a mini-batch model (sgnn_train --batch-size): training::load_block_checkpoint "
                           "rebuilds it, and sgnn_predict reads it");
  }
  if (!has_description(contents)) {
    throw IoError(name, 0, detail::concat("holds a \"", kind, "\" model built by hand, without a description; only "
                                          "models made by make_model (a registered kind) can be rebuilt from a "
                                          "checkpoint"));
  }
  TrainedModel trained;
  trained.description = description_from_metadata(contents.metadata, name);
  // The parameters its kind counts for the description cannot outnumber the
  // stored ones: a damaged or crafted description is refused here, before
  // the model it describes is allocated.
  double stored_elements = 0;
  for (const auto& [section, tensor] : contents.sections) {
    if (section.starts_with("param.")) stored_elements += static_cast<double>(tensor.numel());
  }
  try {
    trained.description = complete_description(trained.description);
    const std::optional<ModelMemory> described = model_memory(trained.description, GraphSize{});
    if (described && static_cast<double>(described->parameters) > stored_elements) {
      throw IoError(name, 0, detail::concat("describes a model (", description_summary(trained.description), ") of ",
                                            described->parameters, " parameter values, but holds ", stored_elements));
    }
  } catch (const InvalidArgument& error) {
    throw IoError(name, 0, error.what());
  }
  trained.generator = std::make_unique<Generator>(0);
  try {
    trained.model = make_model(trained.description, *trained.generator);
  } catch (const InvalidArgument& error) {
    throw IoError(name, 0, error.what());
  }
  trained.model->eval();
  const TrainingState state = decode_state(contents, path);
  trained.epochs = state.epoch;

  // The file's parameters must be exactly those of the model it describes.
  const auto named = trained.model->named_parameters();
  const auto stored = static_cast<std::size_t>(std::count_if(
      contents.sections.begin(), contents.sections.end(), [](const auto& s) { return s.first.starts_with("param."); }));
  if (stored != named.size()) {
    throw IoError(name, 0, detail::concat("holds ", stored, " parameters, the model it describes (",
                                          description_summary(trained.description), ") has ", named.size()));
  }
  std::vector<Tensor> values;
  for (const auto& [parameter_name, parameter] : named) {
    const Tensor& value = entry(contents, "param." + parameter_name, path);
    if (value.shape() != parameter.shape() || value.dtype() != parameter.dtype()) {
      throw IoError(name, 0, detail::concat("parameter \"", parameter_name, "\" is ", shape_str(value.shape()),
                                            ", the model it describes has ", shape_str(parameter.shape())));
    }
    values.push_back(value);
  }
  const std::string buffers = buffer_mismatch(contents, *trained.model);
  if (!buffers.empty()) throw IoError(name, 0, buffers);
  const bool best = which == CheckpointParameters::Best && !state.best_parameters.empty();
  if (best) {
    if (state.best_parameters.size() != values.size()) {
      throw IoError(name, 0, detail::concat("holds ", state.best_parameters.size(), " best-epoch parameters for ",
                                            values.size(), " parameters"));
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (state.best_parameters[i].shape() != values[i].shape() ||
          state.best_parameters[i].dtype() != values[i].dtype()) {
        throw IoError(name, 0, detail::concat("best-epoch parameter ", i, " is ",
                                              shape_str(state.best_parameters[i].shape()), ", the model's ",
                                              shape_str(values[i].shape())));
      }
    }
    values = state.best_parameters;
  }
  // The best epoch's buffers when the file kept them (BatchNorm's running
  // statistics of that epoch), else those after the last epoch.
  const auto named_buffers = trained.model->named_buffers();
  const bool best_buffers = best && !state.best_buffers.empty();
  if (best_buffers) {
    if (state.best_buffers.size() != named_buffers.size()) {
      throw IoError(name, 0, detail::concat("holds ", state.best_buffers.size(), " best-epoch buffers for ",
                                            named_buffers.size(), " buffers"));
    }
    for (std::size_t i = 0; i < named_buffers.size(); ++i) {
      const Tensor& buffer = named_buffers[i].second;
      if (state.best_buffers[i].shape() != buffer.shape() || state.best_buffers[i].dtype() != buffer.dtype()) {
        throw IoError(name, 0, detail::concat("best-epoch buffer \"", named_buffers[i].first, "\" is ",
                                              shape_str(state.best_buffers[i].shape()), ", the model's ",
                                              shape_str(buffer.shape())));
      }
    }
  }
  std::vector<Tensor> parameters = trained.model->parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) copy_into(parameters[i], values[i]);
  load_buffers(contents, *trained.model);
  if (best_buffers) {
    for (std::size_t i = 0; i < named_buffers.size(); ++i) {
      Tensor buffer = named_buffers[i].second;
      copy_into(buffer, state.best_buffers[i]);
    }
  }
  trained.model->refresh_compute_copies();
  trained.parameters_epoch = best ? state.best_epoch : state.epoch;
  return trained;
}

}  // namespace sgnn::training
