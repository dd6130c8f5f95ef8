#include "training/checkpoint_entries.hpp"

#include <bit>

#include "core/error.hpp"

namespace sgnn::training::checkpoint_entries {

Tensor int64_scalar(int64_t value) { return Tensor::from_vector(std::vector<int64_t>{value}, {1}); }

Tensor double_bits(const std::vector<double>& values) {
  std::vector<int64_t> bits;
  for (double v : values) bits.push_back(std::bit_cast<int64_t>(v));
  return Tensor::from_vector(bits, {static_cast<int64_t>(bits.size())});
}

Tensor generator_state(const Generator& generator) {
  return Tensor::from_vector(
      std::vector<int64_t>{std::bit_cast<int64_t>(generator.seed()), std::bit_cast<int64_t>(generator.offset())}, {2});
}

const Tensor& entry(const graph_io::SectionFile& contents, const std::string& name, const std::filesystem::path& path) {
  if (!contents.has(name)) throw IoError(path.string(), 0, "missing entry \"" + name + "\"");
  return contents.at(name);
}

int64_t int64_entry(const graph_io::SectionFile& contents, const std::string& name, const std::filesystem::path& path) {
  const Tensor& t = entry(contents, name, path);
  if (t.dtype() != DType::Int64 || t.numel() != 1) throw IoError(path.string(), 0, "entry \"" + name + "\" malformed");
  return t.data<int64_t>()[0];
}

std::vector<double> double_entry(const graph_io::SectionFile& contents, const std::string& name,
                                 const std::filesystem::path& path) {
  const Tensor& t = entry(contents, name, path);
  if (t.dtype() != DType::Int64 || t.dim() != 1) throw IoError(path.string(), 0, "entry \"" + name + "\" malformed");
  std::vector<double> values;
  for (const int64_t bits : t.to_vector<int64_t>()) values.push_back(std::bit_cast<double>(bits));
  return values;
}

std::vector<Tensor> numbered(const graph_io::SectionFile& contents, const std::string& prefix) {
  std::vector<Tensor> out;
  while (contents.has(prefix + std::to_string(out.size()))) out.push_back(contents.at(prefix + std::to_string(out.size())));
  return out;
}

GeneratorState generator_entry(const graph_io::SectionFile& contents, const std::filesystem::path& path) {
  const Tensor& t = entry(contents, "generator", path);
  if (t.dtype() != DType::Int64 || t.numel() != 2) throw IoError(path.string(), 0, "entry \"generator\" malformed");
  const int64_t* values = t.data<int64_t>();  // 2 of them, checked above
  return {std::bit_cast<uint64_t>(values[0]), std::bit_cast<uint64_t>(values[1])};
}

void set_generator(Generator& generator, GeneratorState state) {
  generator.reset(state.seed);
  generator.set_offset(state.offset);
}

void load_optimizer_and_trainer(const graph_io::SectionFile& contents, Optimizer& optimizer,
                                const std::function<void()>& set_trainer_state) {
  const std::vector<Tensor> saved_optimizer_state = optimizer.state();
  optimizer.load_state(numbered(contents, "optimizer."));
  try {
    set_trainer_state();
  } catch (...) {
    optimizer.load_state(saved_optimizer_state);
    throw;
  }
}

}  // namespace sgnn::training::checkpoint_entries
