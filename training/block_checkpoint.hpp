// Mini-batch models in checkpoints: what `sgnn_train --batch-size ...
// --checkpoint FILE` writes and sgnn_predict reads (training/prediction_run.hpp).
//
// File: a section file (graph_io/section_file.hpp) of kind "checkpoint",
// version 2 (as training/checkpoint.hpp's), whose metadata says
// training = "minibatch":
//   the model's ModelDescription (training/nn/model_description.hpp) whose
//   kind is a built-in block model (minibatch_model_names(): sage, gcn,
//   gat) and whose hyperparameters are hidden, layers and dropout, with
//   aggregator (sage) or heads and output_heads (gat);
//   minibatch.epochs (epochs run), minibatch.parameters_epoch (whose
//   parameters the file holds);
// then "param.<name>" per parameter (BlockModel::named_parameters()): the
// best validation epoch's, which the run reports the test accuracy of (the
// last epoch's when nothing was evaluated); and what continues the run
// (`sgnn_train --batch-size ... --resume FILE`): "last.<name>" (the
// parameters after the last epoch), "optimizer.<i>" (Optimizer::state()),
// "minibatch.batches_drawn", "minibatch.best_epoch", "minibatch.history"
// (each epoch's record, as doubles) and "generator" (the dropout
// generator's seed and offset). Written atomically. Resuming on the CPU
// gives results bit-identical to an uninterrupted run.
//
// Errors: IoError(file, 0, reason) for a kind that is not a built-in block
// model, a missing or malformed key, or parameters other than the
// described model's (names, shapes, dtypes); reading the file itself fails
// as any section file does (damaged, truncated, another kind or version).
// Resuming a file of another model than the run's is InvalidArgument
// naming the difference; a file written before checkpoints held the
// training state (no "minibatch.history") is IoError: it predicts, it
// cannot resume.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/generator.hpp"
#include "graph_io/section_file.hpp"
#include "training/block_model.hpp"
#include "training/minibatch_trainer.hpp"
#include "training/optimizer.hpp"
#include "training/nn/model_description.hpp"

namespace sgnn::training {

// The description of built-in block model `kind` made from `config`
// (GraphSAGE's `aggregator`; input features row-normalised or not).
ModelDescription block_model_description(const std::string& kind, const BlockModelConfig& config,
                                         const std::string& aggregator, bool row_normalize_features);

// "sage (mini-batch) 1433 -> 128 -> 7, mean aggregator, row-normalize features, fp32"
std::string block_model_summary(const ModelDescription& description);

struct BlockCheckpointEpochs {
  int64_t epochs = 0;            // epochs run
  int64_t parameters_epoch = 0;  // the epoch whose parameters are stored
};

// Writes a run as it stands after an epoch (MinibatchTrainer's on_epoch):
// `model` holds that epoch's parameters, `trainer` the best epoch's.
// InvalidArgument for a description of no built-in block model; IoError when
// the file cannot be written.
void save_block_checkpoint(const std::filesystem::path& path, const BlockModel& model,
                           const ModelDescription& description, const Optimizer& optimizer,
                           const MinibatchTrainerState& trainer, const Generator& generator);

// Whether a checkpoint file read with graph_io::read_section_file holds a
// mini-batch model (training = "minibatch") rather than a full-graph one.
bool is_block_checkpoint(const graph_io::SectionFile& contents);

struct TrainedBlockModel {
  ModelDescription description;
  std::unique_ptr<Generator> generator;  // the model's dropout refers to it (idle in evaluation mode)
  std::unique_ptr<BlockModel> model;     // on the host, in evaluation mode
  BlockCheckpointEpochs epochs;
};

// The model of a block checkpoint, rebuilt and holding its parameters.
TrainedBlockModel load_block_checkpoint(const graph_io::SectionFile& contents);

// Continues a run from `contents`: the run's own model (built from
// `description`, which must equal the file's), its optimizer, trainer and
// dropout generator get the file's last parameters and state. Everything is
// checked before anything changes.
void resume_block_checkpoint(const graph_io::SectionFile& contents, const ModelDescription& description,
                             BlockModel& model, Optimizer& optimizer, MinibatchTrainer& trainer,
                             Generator& generator);

}  // namespace sgnn::training
