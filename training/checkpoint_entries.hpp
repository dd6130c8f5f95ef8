// The typed entries checkpoint files are made of (training/checkpoint.hpp's
// full-graph files and training/block_checkpoint.hpp's mini-batch ones):
// int64 scalars, doubles kept as their bit patterns (so a file restores them
// exactly), numbered tensors ("optimizer.0", "optimizer.1", ...) and the
// generator's seed and offset. The readers throw IoError(file, 0, what) for
// a missing or malformed entry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/generator.hpp"
#include "core/tensor.hpp"
#include "graph_io/section_file.hpp"
#include "training/optimizer.hpp"

namespace sgnn::training::checkpoint_entries {

Tensor int64_scalar(int64_t value);
Tensor double_bits(const std::vector<double>& values);
// int64 [2]: the seed and the offset, as "generator" holds them.
Tensor generator_state(const Generator& generator);

const Tensor& entry(const graph_io::SectionFile& contents, const std::string& name, const std::filesystem::path& path);
int64_t int64_entry(const graph_io::SectionFile& contents, const std::string& name, const std::filesystem::path& path);
std::vector<double> double_entry(const graph_io::SectionFile& contents, const std::string& name,
                                 const std::filesystem::path& path);
// prefix + "0", prefix + "1", ... up to the first missing one.
std::vector<Tensor> numbered(const graph_io::SectionFile& contents, const std::string& prefix);
// The seed and offset of entry "generator", checked; set on a generator with set_generator.
struct GeneratorState {
  uint64_t seed = 0, offset = 0;
};
GeneratorState generator_entry(const graph_io::SectionFile& contents, const std::filesystem::path& path);
void set_generator(Generator& generator, GeneratorState state);

// The optimizer's state from "optimizer.<i>", then set_trainer_state(): if
// that throws, the optimizer's state before is put back, so neither has
// changed (Optimizer::load_state and the trainers' set_state check their
// parts and change nothing on failure).
void load_optimizer_and_trainer(const graph_io::SectionFile& contents, Optimizer& optimizer,
                                const std::function<void()>& set_trainer_state);

}  // namespace sgnn::training::checkpoint_entries
