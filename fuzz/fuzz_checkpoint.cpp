// libFuzzer target: load_checkpoint on arbitrary bytes into a small model,
// optimizer, trainer and generator, load_trained_model (the model rebuilt
// from the file's description) and load_block_checkpoint (a mini-batch
// model rebuilt so). Only sgnn::Error may escape, and a failed load must
// leave the model's parameters as they were.
#include <cstdlib>

#include "core/error.hpp"
#include "fuzz/checkpoint_fixture.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/section_file.hpp"
#include "training/block_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto file = sgnn::fuzz::scratch_folder() / "checkpoint.sgnn";
  sgnn::fuzz::write_file(file, data, size);
  sgnn::fuzz::CheckpointFixture fixture(1);
  std::vector<std::vector<float>> before;
  for (const sgnn::Tensor& p : fixture.model->parameters()) before.push_back(p.to_vector<float>());
  try {
    fixture.load(file);
  } catch (const sgnn::Error&) {
    std::size_t i = 0;
    for (const sgnn::Tensor& p : fixture.model->parameters()) {
      if (p.to_vector<float>() != before[i++]) std::abort();  // a refused file changed the model
    }
  }
  try {
    (void)sgnn::training::load_trained_model(file);
  } catch (const sgnn::Error&) {
  }
  try {
    (void)sgnn::training::load_block_checkpoint(sgnn::graph_io::read_section_file(file, "checkpoint", 1, 2));
  } catch (const sgnn::Error&) {
  }
  return 0;
}
