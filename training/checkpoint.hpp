// Checkpoints: everything needed to continue a training run exactly — the
// model's parameters (by name), the optimizer's state, the trainer's progress
// (epoch, best epoch and its parameters, patience counter, history) and the
// generator's seed and offset (so dropout masks continue where they were).
//
// Version 2 also describes the model (training/nn/model_description.hpp: kind,
// layer widths, heads, activation, adjacency normalisation, feature
// transform, precision, class count), so the checkpoint alone rebuilds it
// for inference (load_trained_model).
//
// File: a section file (graph_io/section_file.hpp) of kind "checkpoint" and
// format version 2: the description as metadata, then named host tensors —
// "param.<name>" (the parameters after the last epoch), "buffer.<name>" (the
// model's buffers after the last epoch: BatchNorm's running statistics; a
// model with none stores none, so older files still load), "best.<i>" (those
// of the best validation epoch, in Model::parameters() order),
// "best_buffer.<i>" (the buffers of that epoch, in Model::named_buffers()
// order; absent in older files, whose best parameters come with the last
// epoch's buffers), the
// optimizer state, the trainer's progress and the generator — with CRC-32s.
// Written atomically: a temporary file in the same folder, fsync, rename — a
// crash never leaves a half-written checkpoint under `path`. Resuming on the
// CPU gives results bit-identical to an uninterrupted run.
//
// Errors: unreadable, truncated or corrupt file, or an unknown version ->
// IoError naming the file and the problem; a checkpoint of another model
// (kind, description, parameter or buffer names or shapes, optimizer layout) ->
// InvalidArgument. load_checkpoint validates everything before changing
// anything.
#pragma once

#include <filesystem>
#include <memory>

#include "core/generator.hpp"
#include "graph_io/section_file.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

namespace sgnn::training {

inline constexpr uint32_t kCheckpointVersion = 2;
// Version 1 (no description) still loads for resuming, where the caller
// supplies the model; load_trained_model refuses it with how to convert it.
inline constexpr uint32_t kOldestCheckpointVersion = 1;

// Writes the latest version; the description when the model has one (a
// model built by hand has none: it can be resumed, not rebuilt).
void save_checkpoint(const std::filesystem::path& path, const Model& model, const Optimizer& optimizer,
                     const TrainingState& state, const Generator& generator);

// Continues a run: reads versions 1 and 2 into a model, optimizer, trainer and
// generator built by the caller. A version-2 description must match the
// model's (InvalidArgument naming the first difference).
void load_checkpoint(const std::filesystem::path& path, Model& model, Optimizer& optimizer, Trainer& trainer,
                     Generator& generator);

// Which of a checkpoint's parameters a rebuilt model gets: those of the best
// validation epoch (what training ends with and reports the test accuracy
// of; the last epoch's when no epoch ran), or those after the last epoch.
enum class CheckpointParameters : unsigned char { Best, Last };
const char* checkpoint_parameters_name(CheckpointParameters which);  // "best", "last"
CheckpointParameters parse_checkpoint_parameters(const std::string& text);  // InvalidArgument otherwise

// A model rebuilt from a version-2 checkpoint alone, for inference.
struct TrainedModel {
  ModelDescription description;
  std::unique_ptr<Generator> generator;  // the model's dropout layers refer to it (idle in evaluation mode)
  std::shared_ptr<Model> model;          // on the host, in evaluation mode
  int64_t epochs = 0;                    // epochs the checkpoint's run had completed
  int64_t parameters_epoch = 0;          // the epoch whose parameters the model holds (0: before training)
};

// Throws IoError(path, 0, reason) when the file is unreadable or damaged, is
// version 1 (the message says how to convert it), has no description, or
// describes a model this build cannot make or whose parameters do not match.
TrainedModel load_trained_model(const std::filesystem::path& path,
                                CheckpointParameters which = CheckpointParameters::Best);
// The same for a checkpoint file already read (graph_io::read_section_file,
// kind "checkpoint"; errors name contents.source).
TrainedModel load_trained_model(const graph_io::SectionFile& contents,
                                CheckpointParameters which = CheckpointParameters::Best);

}  // namespace sgnn::training
