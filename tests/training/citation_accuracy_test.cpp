#include <doctest/doctest.h>

#include "tests/training/planetoid_fixture.hpp"
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
