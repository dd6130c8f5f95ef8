// Regressions found by fuzz/fuzz_checkpoint: files whose checksums are right
// (rewritten through write_section_file) but whose contents are not a
// checkpoint this build wrote. Each must fail with IoError and change nothing.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "graph_io/section_file.hpp"
#include "tests/support/checkpoint_edits.hpp"
#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"

using namespace sgnn;
using namespace sgnn::training;

TEST_CASE("checkpoint: an epoch number in the history that is not a whole int64 is refused, not converted") {
  const sgnn::testing::TinyTask task = sgnn::testing::tiny_task();
  Generator generator(5);
  const std::shared_ptr<Model> model = sgnn::testing::tiny_gcn(task, generator);
  Adam optimizer(model->parameter_groups(5e-4f));
  Trainer trainer(*model, optimizer, task.data, {});
  trainer.run_epoch();
  trainer.run_epoch();
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("sgnn_checkpoint_regression_" + std::to_string(::getpid()));
  const std::filesystem::path good = folder / "good.ckpt";
  save_checkpoint(good, *model, optimizer, trainer.state(), generator);
  const graph_io::SectionFile contents = graph_io::read_section_file(good, "checkpoint", kCheckpointVersion);

  for (const double epoch : sgnn::testing::kNotWholeCounts) {
    CAPTURE(epoch);
    // The second record's epoch.
    const graph_io::SectionFile bad = sgnn::testing::with_int64_bits(contents, "trainer.history", 6, epoch);
    const std::filesystem::path file = folder / "bad.ckpt";
    graph_io::write_section_file(file, bad);
    Generator other_generator(6);
    const std::shared_ptr<Model> other = sgnn::testing::tiny_gcn(task, other_generator);
    Adam other_optimizer(other->parameter_groups(5e-4f));
    Trainer other_trainer(*other, other_optimizer, task.data, {});
    const std::vector<float> before = other->parameters().front().to_vector<float>();
    CHECK_THROWS_WITH_AS(load_checkpoint(file, *other, other_optimizer, other_trainer, other_generator),
                         doctest::Contains("\"trainer.history\" malformed: epoch number"), IoError);
    CHECK(other->parameters().front().to_vector<float>() == before);
    CHECK(other_trainer.state().epoch == 0);
  }
  // The untouched file still loads.
  Generator fresh_generator(7);
  const std::shared_ptr<Model> fresh = sgnn::testing::tiny_gcn(task, fresh_generator);
  Adam fresh_optimizer(fresh->parameter_groups(5e-4f));
  Trainer fresh_trainer(*fresh, fresh_optimizer, task.data, {});
  load_checkpoint(good, *fresh, fresh_optimizer, fresh_trainer, fresh_generator);
  CHECK(fresh_trainer.state().epoch == 2);
  std::filesystem::remove_all(folder);
}
