#include <doctest/doctest.h>

#include "tests/training/planetoid_fixture.hpp"
#include "training/experiment.hpp"
#include "training/nn/models.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

TEST_CASE("GCN with the paper's settings reaches at least 79% test accuracy on Cora on the CPU (seed 0)" * doctest::test_suite("accuracy")) {
  const Planetoid cora = load_planetoid("cora", /*symmetric_normalization=*/true);
  REQUIRE(cora.data.train_index.numel() == 140);
  Generator generator(0);
  const auto model = make_model({.kind = "gcn", .in_features = cora.features, .classes = cora.classes}, generator);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
  Trainer trainer(*model, optimizer, cora.data, {});
  const TrainResult result = trainer.fit();
  MESSAGE("GCN Cora: test accuracy ", result.best.test.accuracy, " at epoch ", result.best_epoch,
          ", validation ", result.best.validation.accuracy);
  CHECK(result.history.size() == 200);
  CHECK(result.best.test.accuracy >= 0.79);
  CHECK(result.best.test.macro_f1 > 0.7);
}

TEST_CASE("GAT with the paper's settings learns Cora on the CPU (seed 0)" * doctest::test_suite("accuracy")) {
  const Planetoid cora = load_planetoid("cora", /*symmetric_normalization=*/false);
  Generator generator(0);
  const auto model = make_model({.kind = "gat",
                                 .in_features = cora.features,
                                 .classes = cora.classes,
                                 .hyperparameters = {{"projected_dropout", "off"}}},
                                generator);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.005f});
  TrainerOptions options;
  options.patience = 100;
  Trainer trainer(*model, optimizer, cora.data, options);
  const TrainResult result = trainer.fit();
  MESSAGE("GAT Cora: test accuracy ", result.best.test.accuracy, " at epoch ", result.best_epoch, " of ",
          result.history.size(), ", validation ", result.best.validation.accuracy);
  CHECK(result.best.test.accuracy >= 0.79);
}

namespace {

// `runs` seeds from 0 of a registered model with its own settings (its
// registry entry's defaults and feature transform), as sgnn_train --model
// runs it on the CPU.
ExperimentResult registry_runs(const std::string& model, int64_t runs) {
  ExperimentOptions options;
  options.model = model;
  options.dataset = planetoid_path("cora");
  options.runs = runs;
  const ExperimentResult result = run_experiment(options);
  for (const RunSummary& run : result.runs) {
    MESSAGE(model, " Cora seed ", run.seed, ": test accuracy ", run.result.best.test.accuracy, " at epoch ",
            run.result.best_epoch);
  }
  MESSAGE(model, " Cora mean of ", runs, " seeds: ", result.test_accuracy, " ± ", result.test_accuracy_std);
  return result;
}

}  // namespace

// PyG's examples/sgc.py reports about 81% on Cora; our runs give 81.7-82.4 (seeds 0-2).
TEST_CASE("SGC with PyG's example settings reaches 79% mean test accuracy on Cora on the CPU (seeds 0-2)" * doctest::test_suite("accuracy")) {
  const ExperimentResult result = registry_runs("sgc", 3);
  CHECK(result.hyperparameters.at("hops") == "2");
  CHECK(result.test_accuracy >= 0.79);
  for (const RunSummary& run : result.runs) CHECK(run.result.best.test.accuracy >= 0.77);
}

// PyG's benchmark/citation/appnp.py reports about 83% on Cora; our runs give 83.3-83.7 (seeds 0-2).
TEST_CASE("APPNP with PyG's benchmark settings reaches 81% mean test accuracy on Cora on the CPU (seeds 0-2)" * doctest::test_suite("accuracy")) {
  const ExperimentResult result = registry_runs("appnp", 3);
  CHECK(result.hyperparameters.at("hops") == "10");
  CHECK(result.hyperparameters.at("alpha") == "0.1");
  CHECK(result.test_accuracy >= 0.81);
  for (const RunSummary& run : result.runs) CHECK(run.result.best.test.accuracy >= 0.79);
}
