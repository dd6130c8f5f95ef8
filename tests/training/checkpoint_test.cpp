#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / ("sgnn_checkpoint_test_" + std::to_string(getpid()));
  fs::create_directories(directory);
  return directory / name;
}

// Everything one run needs, built from `seed` (model init and dropout stream).
struct Run {
  explicit Run(const TinyTask& task, uint64_t seed, int64_t epochs = 20)
      : generator(seed), model(tiny_gcn(task, generator)),
        optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f}),
        trainer(*model, optimizer, task.data, options(epochs)) {}
  static TrainerOptions options(int64_t epochs) {
    TrainerOptions o;
    o.epochs = epochs;
    o.patience = 8;
    return o;
  }
  Generator generator;
  std::shared_ptr<Model> model;
  Adam optimizer;
  Trainer trainer;
};

std::vector<std::vector<float>> parameter_values(const Model& model) {
  std::vector<std::vector<float>> out;
  for (const Tensor& p : model.parameters()) out.push_back(p.to_vector<float>());
  return out;
}

void corrupt_byte(const fs::path& path, std::streamoff offset) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(offset);
  char c = 0;
  file.read(&c, 1);
  file.seekp(offset);
  c = static_cast<char>(c ^ 0x5a);
  file.write(&c, 1);
}

}  // namespace

TEST_CASE("resuming from a checkpoint continues bit-identically to an uninterrupted run") {
  const TinyTask task = tiny_task();
  Run uninterrupted(task, 7);
  const TrainResult expected = uninterrupted.trainer.fit();

  const fs::path path = scratch("resume.ckpt");
  {
    Run first_half(task, 7);
    for (int epoch = 0; epoch < 9; ++epoch) first_half.trainer.run_epoch();
    save_checkpoint(path, *first_half.model, first_half.optimizer, first_half.trainer.state(), first_half.generator);
  }
  Run resumed(task, 12345);  // other initial weights and dropout stream: all must come from the file
  load_checkpoint(path, *resumed.model, resumed.optimizer, resumed.trainer, resumed.generator);
  CHECK(resumed.trainer.state().epoch == 9);
  CHECK(resumed.generator.seed() == 7);
  const TrainResult got = resumed.trainer.fit();

  REQUIRE(got.history.size() == expected.history.size());
  for (std::size_t i = 0; i < got.history.size(); ++i) {
    CHECK(got.history[i].train_loss == expected.history[i].train_loss);
    CHECK(got.history[i].validation_loss == expected.history[i].validation_loss);
    CHECK(got.history[i].validation_accuracy == expected.history[i].validation_accuracy);
  }
  CHECK(got.best_epoch == expected.best_epoch);
  CHECK(got.stopped_early == expected.stopped_early);
  CHECK(got.best.test.accuracy == expected.best.test.accuracy);
  CHECK(parameter_values(*resumed.model) == parameter_values(*uninterrupted.model));
  CHECK(resumed.optimizer.step_count() == uninterrupted.optimizer.step_count());
  fs::remove_all(path.parent_path());
}

TEST_CASE("saving replaces the file atomically and leaves no temporary behind") {
  const TinyTask task = tiny_task();
  Run run(task, 1);
  run.trainer.run_epoch();
  const fs::path path = scratch("atomic.ckpt");
  save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
  run.trainer.run_epoch();
  save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& item : fs::directory_iterator(path.parent_path())) ++files;
  CHECK(files == 1);
  Run other(task, 2);
  load_checkpoint(path, *other.model, other.optimizer, other.trainer, other.generator);
  CHECK(other.trainer.state().epoch == 2);
  const fs::path blocker = scratch("a-file");
  std::ofstream(blocker) << "x";  // a file where the checkpoint's folder would be
  CHECK_THROWS_AS(save_checkpoint(blocker / "x.ckpt", *run.model, run.optimizer, run.trainer.state(), run.generator),
                  IoError);
  fs::remove_all(path.parent_path());
}

TEST_CASE("corrupt, truncated, foreign or wrong-model checkpoints give clear errors and change nothing") {
  const TinyTask task = tiny_task();
  Run run(task, 3);
  run.trainer.run_epoch();
  const fs::path path = scratch("good.ckpt");
  save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
  const auto size = static_cast<std::streamoff>(fs::file_size(path));

  Run target(task, 4);
  const auto before = parameter_values(*target.model);
  auto load = [&](const fs::path& file) {
    load_checkpoint(file, *target.model, target.optimizer, target.trainer, target.generator);
  };

  // A flipped byte anywhere either fails with IoError or (alignment padding)
  // changes nothing that is read; the last payload byte must fail.
  const fs::path corrupt = scratch("corrupt.ckpt");
  int failures = 0;
  for (std::streamoff offset = 0; offset < size; offset += std::max<std::streamoff>(1, size / 64)) {
    fs::copy_file(path, corrupt, fs::copy_options::overwrite_existing);
    corrupt_byte(corrupt, offset);
    Run probe(task, 4);
    try {
      load_checkpoint(corrupt, *probe.model, probe.optimizer, probe.trainer, probe.generator);
      CHECK(parameter_values(*probe.model) == parameter_values(*run.model));
    } catch (const IoError&) {
      ++failures;
    }
  }
  CHECK(failures > 0);
  fs::copy_file(path, corrupt, fs::copy_options::overwrite_existing);
  corrupt_byte(corrupt, size - 1);
  CHECK_THROWS_AS(load(corrupt), IoError);

  const fs::path truncated = scratch("truncated.ckpt");
  fs::copy_file(path, truncated);
  fs::resize_file(truncated, static_cast<std::uintmax_t>(size - 100));
  CHECK_THROWS_AS(load(truncated), IoError);

  const fs::path foreign = scratch("foreign.ckpt");
  std::ofstream(foreign) << "hello, not a checkpoint";
  CHECK_THROWS_WITH_AS(load(foreign), doctest::Contains("foreign.ckpt"), IoError);
  CHECK_THROWS_WITH_AS(load(scratch("missing.ckpt")), doctest::Contains("missing.ckpt"), IoError);

  const fs::path future = scratch("future.ckpt");
  fs::copy_file(path, future);
  corrupt_byte(future, 8);  // the container version's low byte
  CHECK_THROWS_WITH_AS(load(future), doctest::Contains("version"), IoError);

  // A wider model: same kind, other shapes.
  Generator generator(0);
  const auto wide_model = make_model(
      {.kind = "gcn", .in_features = task.features, .classes = task.classes, .hyperparameters = {{"hidden", "12"}}},
      generator);
  Adam wide_optimizer(wide_model->parameter_groups(5e-4f));
  Trainer wide_trainer(*wide_model, wide_optimizer, task.data, {});
  CHECK_THROWS_WITH_AS(load_checkpoint(path, *wide_model, wide_optimizer, wide_trainer, generator),
                       doctest::Contains("the checkpoint's model has hidden 8, this one 12 (--hidden?)"), InvalidArgument);

  // Another kind of model.
  const auto gat_model = make_model({.kind = "gat", .in_features = task.features, .classes = task.classes}, generator);
  Adam gat_optimizer(gat_model->parameter_groups(5e-4f));
  Trainer gat_trainer(*gat_model, gat_optimizer, task.data, {});
  CHECK_THROWS_WITH_AS(load_checkpoint(path, *gat_model, gat_optimizer, gat_trainer, generator),
                       doctest::Contains("holds a gcn model, not a gat"), InvalidArgument);

  CHECK(parameter_values(*target.model) == before);
  CHECK(target.trainer.state().epoch == 0);
  CHECK(target.optimizer.step_count() == 0);
  fs::remove_all(path.parent_path());
}
