// Checkpoints: everything needed to continue a training run exactly — the
// model's parameters (by name), the optimizer's state, the trainer's progress
// (epoch, best epoch and its parameters, patience counter, history) and the
// generator's seed and offset (so dropout masks continue where they were).
//
// File: "SGNNCKPT", a format version, the model kind and precision (fp32,
// bf16: metadata; the parameters are the float32 masters either way, the
// bfloat16 compute copies are rebuilt from them on load), then named host
// tensors, and a CRC-32 of everything before it. Written atomically: a temporary file
// in the same folder, fsync, rename — a crash never leaves a half-written
// checkpoint under `path`. Resuming on the CPU gives results bit-identical to
// an uninterrupted run.
//
// Errors: unreadable, truncated or corrupt file, or an unknown version ->
// IoError naming the file and the problem; a checkpoint of another model
// (kind, precision, parameter names or shapes, optimizer layout) ->
// InvalidArgument.
// load_checkpoint validates everything before changing anything.
#pragma once

#include <filesystem>

#include "core/generator.hpp"
#include "training/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

namespace sgnn::training {

inline constexpr uint32_t kCheckpointVersion = 1;

void save_checkpoint(const std::filesystem::path& path, const Model& model, const Optimizer& optimizer,
                     const TrainingState& state, const Generator& generator);

void load_checkpoint(const std::filesystem::path& path, Model& model, Optimizer& optimizer, Trainer& trainer,
                     Generator& generator);

}  // namespace sgnn::training
