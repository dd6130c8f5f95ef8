// Checkpoint version 2 describes its model: load_trained_model rebuilds it
// from the file alone; version 1 still resumes but is refused for inference
// with how to convert it; damaged or inconsistent files are refused.
#include <doctest/doctest.h>

#include <fstream>
#include <memory>

#include "core/autograd.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"

using namespace sgnn;
using namespace sgnn::training;
using sgnn::testing::TempDir;
using sgnn::testing::TinyTask;

namespace {

struct Run {
  explicit Run(const TinyTask& task, uint64_t seed, int64_t epochs)
      : generator(seed),
        model(sgnn::testing::tiny_gcn(task, generator)),
        optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f}),
        trainer(*model, optimizer, task.data, options(epochs)) {}
  static TrainerOptions options(int64_t epochs) {
    TrainerOptions o;
    o.epochs = epochs;
    return o;
  }
  Generator generator;
  std::shared_ptr<Model> model;
  Adam optimizer;
  Trainer trainer;
};

std::vector<float> logits_of(Model& model, const TinyTask& task) {
  model.eval();
  autograd::NoGradGuard no_grad;
  return model.forward(task.data.graph, task.data.features).to_vector<float>();
}

// `path`'s contents as read, for rewriting through write_section_file
// (right checksums, contents of our choosing).
graph_io::SectionFile contents_of(const std::filesystem::path& path) {
  return graph_io::read_section_file(path, "checkpoint", kOldestCheckpointVersion, kCheckpointVersion);
}

// What an older sparsegnn wrote: version 1, the kind as the only metadata.
void write_version_1(const std::filesystem::path& from, const std::filesystem::path& to) {
  graph_io::SectionFile old = contents_of(from);
  old.kind_version = 1;
  old.metadata = {{"model", old.metadata.at("model")}};
  graph_io::write_section_file(to, old);
}

// A run of `epochs` epochs saved to `path` at the end.
void train_and_save(Run& run, const std::filesystem::path& path) {
  run.trainer.fit();
  save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
}

}  // namespace

TEST_CASE("a checkpoint alone rebuilds the model with the best epoch's or the last epoch's parameters") {
  const TinyTask task = sgnn::testing::tiny_task(2);
  std::vector<float> last_logits;
  TempDir dir;
  // A run whose best epoch is not its last, so that the two parameter sets
  // differ; which seeds give one depends on their dropout masks.
  std::unique_ptr<Run> run;
  for (uint64_t seed = 7; seed < 27; ++seed) {
    run = std::make_unique<Run>(task, seed, 12);
    run->trainer.fit([&](const EpochRecord&) {
      if (!run->trainer.finished()) return;
      save_checkpoint(dir / "final.ckpt", *run->model, run->optimizer, run->trainer.state(), run->generator);
      last_logits = logits_of(*run->model, task);
      run->model->train();
    });
    if (run->trainer.state().best_epoch < 12) break;
  }
  REQUIRE(run->trainer.state().best_epoch < 12);
  const std::vector<float> best_logits = logits_of(*run->model, task);  // fit() restored the best epoch's

  const TrainedModel best = load_trained_model(dir / "final.ckpt");
  CHECK(best.description.kind == "gcn");
  CHECK(best.epochs == 12);
  CHECK(best.parameters_epoch == run->trainer.state().best_epoch);
  CHECK_FALSE(best.model->is_training());
  CHECK(logits_of(*best.model, task) == best_logits);

  const TrainedModel last = load_trained_model(dir / "final.ckpt", CheckpointParameters::Last);
  CHECK(last.parameters_epoch == 12);
  CHECK(logits_of(*last.model, task) == last_logits);
  CHECK(last_logits != best_logits);
}

TEST_CASE("a version 1 checkpoint still resumes, and inference refuses it with how to convert it") {
  const TinyTask task = sgnn::testing::tiny_task(2);
  TempDir dir;
  Run first(task, 7, 6);
  train_and_save(first, dir / "v2.ckpt");
  write_version_1(dir / "v2.ckpt", dir / "v1.ckpt");

  Run from_v1(task, 1, 10), from_v2(task, 2, 10);
  load_checkpoint(dir / "v1.ckpt", *from_v1.model, from_v1.optimizer, from_v1.trainer, from_v1.generator);
  load_checkpoint(dir / "v2.ckpt", *from_v2.model, from_v2.optimizer, from_v2.trainer, from_v2.generator);
  const TrainResult a = from_v1.trainer.fit();
  const TrainResult b = from_v2.trainer.fit();
  CHECK(a.history.size() == 10);
  for (std::size_t i = 0; i < a.history.size(); ++i) CHECK(a.history[i].train_loss == b.history[i].train_loss);
  CHECK(a.best.test.accuracy == b.best.test.accuracy);

  CHECK_THROWS_WITH_AS(load_trained_model(dir / "v1.ckpt"),
                       doctest::Contains("checkpoint format version 1 (an older sparsegnn) does not describe its gcn"),
                       IoError);
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "v1.ckpt"),
                       doctest::Contains(("sgnn_train --model gcn --dataset <its dataset> <its flags> --resume " +
                                          (dir / "v1.ckpt").string() + " --epochs 6 --checkpoint <new file>")
                                             .c_str()),
                       IoError);
  // Re-saved after loading (what the training program does on --resume with --checkpoint): described again.
  save_checkpoint(dir / "converted.ckpt", *from_v1.model, from_v1.optimizer, from_v1.trainer.state(),
                  from_v1.generator);
  CHECK(load_trained_model(dir / "converted.ckpt").description.kind == "gcn");
}

TEST_CASE("resuming into a model of another description is refused with the difference") {
  const TinyTask task = sgnn::testing::tiny_task(2);
  TempDir dir;
  Run run(task, 7, 3);
  train_and_save(run, dir / "c.ckpt");
  // Same parameter shapes, but the features were meant to be used as stored.
  Generator generator(1);
  const std::shared_ptr<Model> other = make_model({.kind = "gcn",
                                                  .in_features = task.features,
                                                  .classes = task.classes,
                                                  .hyperparameters = {{"hidden", "8"}},
                                                  .feature_transform = graph_io::FeatureTransform::None},
                                                 generator);
  Adam optimizer(other->parameter_groups(5e-4f));
  Trainer trainer(*other, optimizer, task.data, {});
  const std::vector<float> before = other->parameters().front().to_vector<float>();
  CHECK_THROWS_WITH_AS(load_checkpoint(dir / "c.ckpt", *other, optimizer, trainer, generator),
                       doctest::Contains("reads row-normalize features, this one none"), InvalidArgument);
  CHECK(other->parameters().front().to_vector<float>() == before);
}

TEST_CASE("load_trained_model refuses damaged, hand-built and inconsistent checkpoints") {
  const TinyTask task = sgnn::testing::tiny_task(2);
  TempDir dir;
  Run run(task, 7, 2);
  const std::filesystem::path good = dir / "good.ckpt";
  train_and_save(run, good);
  const graph_io::SectionFile contents = contents_of(good);
  const auto refused = [&](graph_io::SectionFile bad, const std::string& expected) {
    CAPTURE(expected);
    graph_io::write_section_file(dir / "bad.ckpt", bad);
    CHECK_THROWS_WITH_AS(load_trained_model(dir / "bad.ckpt"), doctest::Contains(expected.c_str()), IoError);
  };

  graph_io::SectionFile bad = contents;
  bad.metadata["model"] = "resnet";
  refused(bad, "unknown model \"resnet\" (registered: gcn, gat");
  bad = contents;
  bad.metadata["model.hyperparameter.hidden"] = "4";  // the parameters are 8 wide
  refused(bad, "parameter \"layers.1.weight\" is [8, 8], the model it describes has [8, 4]");
  bad = contents;
  bad.metadata["model.hyperparameter.dropout"] = "2";
  refused(bad, "model gcn: --dropout must be in [0, 1), got \"2\"");
  bad = contents;
  bad.metadata["model.hyperparameter.heads"] = "2";
  refused(bad, "model gcn has no hyperparameter \"heads\"");
  bad = contents;
  std::erase_if(bad.sections, [](const auto& section) { return section.first == "param.layers.4.bias"; });
  refused(bad, "of 99 parameter values, but holds 96");
  bad = contents;
  bad.add("param.extra", Tensor::zeros({0}));  // no values more, one parameter more
  refused(bad, "holds 5 parameters, the model it describes");
  bad = contents;  // a description far larger than the file: refused before anything is allocated
  bad.metadata["model.in_features"] = "2000000000";
  bad.metadata["model.hyperparameter.hidden"] = "1048576";
  refused(bad, "parameter values, but holds");
  bad = contents;
  bad.metadata.erase("precision");
  refused(bad, "missing model description entry \"precision\"");
  bad = contents;
  bad.metadata = {{"model", "synchronizing"}};
  refused(bad, "built by hand, without a description");

  // A flipped byte in a payload: the checksum catches it.
  const std::string bytes = sgnn::testing::read_bytes(good);
  std::string damaged = bytes;
  damaged[damaged.size() - 5] = static_cast<char>(damaged[damaged.size() - 5] ^ 0x5a);
  sgnn::testing::write_text(dir / "damaged.ckpt", damaged);
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "damaged.ckpt"), doctest::Contains("checksum"), IoError);
  sgnn::testing::write_text(dir / "short.ckpt", bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "short.ckpt"), doctest::Contains("truncated"), IoError);
  // A newer format.
  bad = contents;
  bad.kind_version = kCheckpointVersion + 1;
  graph_io::write_section_file(dir / "newer.ckpt", bad);
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "newer.ckpt"), doctest::Contains("this build reads versions 1 to 2"),
                       IoError);
}

namespace {

// The description keys a checkpoint had before the model registry (one width
// and head count per layer), as that code wrote them.
std::map<std::string, std::string> layer_list_keys(const graph_io::SectionFile& contents, const std::string& widths,
                                                   const std::string& heads, const std::string& activation,
                                                   const std::string& normalization, const std::string& dropout) {
  return {{"model", contents.metadata.at("model")},
          {"model.in_features", contents.metadata.at("model.in_features")},
          {"model.classes", contents.metadata.at("model.classes")},
          {"model.widths", widths},
          {"model.heads", heads},
          {"model.activation", activation},
          {"model.normalization", normalization},
          {"model.dropout", dropout},
          {"model.projected_dropout", "false"},
          {"features.transform", "row-normalize"},
          {"precision", "fp32"}};
}

}  // namespace

TEST_CASE("a checkpoint written before the registry (per-layer description) loads, predicts the same and resumes") {
  const TinyTask task = sgnn::testing::tiny_task(2);
  TempDir dir;
  Run run(task, 7, 4);
  train_and_save(run, dir / "gcn.ckpt");
  graph_io::SectionFile old = contents_of(dir / "gcn.ckpt");
  CHECK(old.metadata.at("model.hyperparameter.hidden") == "8");
  old.metadata = layer_list_keys(old, "8,3", "1,1", "relu", "symmetric", "0.5");
  graph_io::write_section_file(dir / "old-gcn.ckpt", old);

  const TrainedModel now = load_trained_model(dir / "gcn.ckpt");
  const TrainedModel before = load_trained_model(dir / "old-gcn.ckpt");
  CHECK(description_difference(before.description, now.description).empty());
  CHECK(before.description.hyperparameters == now.description.hyperparameters);
  CHECK(before.description.hyperparameters.at("layers") == "2");
  CHECK(logits_of(*before.model, task) == logits_of(*now.model, task));
  Run resumed(task, 1, 6);
  CHECK_NOTHROW(load_checkpoint(dir / "old-gcn.ckpt", *resumed.model, resumed.optimizer, resumed.trainer,
                                resumed.generator));
  CHECK(resumed.trainer.state().epoch == 4);

  // GAT: two layers of widths and heads.
  Generator generator(3);
  const std::shared_ptr<Model> gat = sgnn::testing::tiny_gat(task, generator);
  Adam optimizer(gat->parameter_groups(5e-4f));
  Trainer trainer(*gat, optimizer, task.data, Run::options(2));
  trainer.fit();
  save_checkpoint(dir / "gat.ckpt", *gat, optimizer, trainer.state(), generator);
  graph_io::SectionFile old_gat = contents_of(dir / "gat.ckpt");
  old_gat.metadata = layer_list_keys(old_gat, "4,3", "3,2", "elu", "none", "0.6");
  graph_io::write_section_file(dir / "old-gat.ckpt", old_gat);
  const TrainedModel gat_before = load_trained_model(dir / "old-gat.ckpt");
  CHECK(gat_before.description.hyperparameters == gat->description().hyperparameters);
  CHECK(logits_of(*gat_before.model, task) == logits_of(*load_trained_model(dir / "gat.ckpt").model, task));

  // What that format could say but no built-in kind builds is refused with the reason.
  old.metadata["model.activation"] = "elu";
  graph_io::write_section_file(dir / "elu.ckpt", old);
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "elu.ckpt"), doctest::Contains("a GCN uses relu, not elu"), IoError);
  old_gat.metadata["model.widths"] = "4,4,3";
  old_gat.metadata["model.heads"] = "3,3,2";
  graph_io::write_section_file(dir / "deep.ckpt", old_gat);
  CHECK_THROWS_WITH_AS(load_trained_model(dir / "deep.ckpt"), doctest::Contains("a GAT has 2 layers, not 3"), IoError);
}
