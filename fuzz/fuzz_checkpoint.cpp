// libFuzzer target: load_checkpoint on arbitrary bytes into a small model,
// optimizer, trainer and generator, load_trained_model (the model rebuilt
// from the file's description), load_block_checkpoint (a mini-batch model
// rebuilt so) and resume_block_checkpoint (a small mini-batch run
// continued). Only sgnn::Error may escape, and a failed load or resume must
// leave the model's parameters as they were.
#include <cstdlib>
#include <optional>

#include "core/error.hpp"
#include "fuzz/checkpoint_fixture.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "fuzz/minibatch_checkpoint_fixture.hpp"
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
  std::optional<sgnn::graph_io::SectionFile> contents;
  try {
    contents = sgnn::graph_io::read_section_file(file, "checkpoint", 1, 2);
  } catch (const sgnn::Error&) {
    return 0;
  }
  try {
    (void)sgnn::training::load_block_checkpoint(*contents);
  } catch (const sgnn::Error&) {
  }
  sgnn::fuzz::MinibatchCheckpointFixture run;
  std::vector<std::vector<float>> run_before;
  for (const sgnn::Tensor& p : run.model.parameters()) run_before.push_back(p.to_vector<float>());
  try {
    run.resume(*contents);
  } catch (const sgnn::Error&) {
    std::size_t i = 0;
    for (const sgnn::Tensor& p : run.model.parameters()) {
      if (p.to_vector<float>() != run_before[i++]) std::abort();  // a refused file changed the model
    }
    if (run.trainer.epochs_done() != 0) std::abort();  // or the trainer
  }
  return 0;
}
