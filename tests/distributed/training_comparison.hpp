// Single-device training against distributed training of the same GCN or GAT
// (same seed, dropout off) on any ranks runner with run(body(Communicator&))
// (ThreadRanks on the host, NcclRanks on GPUs). The distributed side runs
// train_rank, the engine of the distributed programs. Shared by the CPU tier
// and the GPU tier's NCCL test.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "distributed/rank_training.hpp"
#include "tests/distributed/distributed_graphs.hpp"
#include "training/nn/models.hpp"
#include "training/trainer.hpp"

namespace sgnn::testing {

inline constexpr uint64_t kTrainingSeed = 42;
inline constexpr int kTrainingEpochs = 6;

inline distributed::RankTrainingOptions comparison_options(int64_t hidden, const std::string& kind,
                                                          training::Precision precision = training::Precision::Fp32) {
  distributed::RankTrainingOptions options;
  options.model = kind;
  options.precision = precision;
  options.hyperparameters = {{"epochs", std::to_string(kTrainingEpochs)},
                             {"hidden", std::to_string(hidden)},
                             {"dropout", "0"},  // masks would differ between one and several ranks
                             {"lr", "0.05"},
                             {"weight_decay", "5e-4"}};
  if (kind == "gat") options.hyperparameters.insert({{"heads", "2"}, {"output_heads", "1"}});
  options.seed = kTrainingSeed;
  options.row_normalize_features = false;
  return options;
}

struct TrainingRun {
  std::vector<double> losses;
  std::vector<Tensor> parameters;  // host copies after the last epoch
  training::Evaluation evaluation;
};

// The library's Trainer on one device (`a` and `task` on the host).
inline TrainingRun single_device_run(const Adjacency& a, const Task& task, int64_t hidden, Device device,
                                     const std::string& kind = "gcn",
                                     training::Precision precision = training::Precision::Fp32) {
  const distributed::RankTrainingOptions options = comparison_options(hidden, kind, precision);
  Generator generator(kTrainingSeed);
  const auto model = training::make_model(
      distributed::rank_model_description(options, task.features.size(1), task.classes), generator);
  model->to(device);
  ops::AdamHyperparameters adam;
  adam.learning_rate = 0.05f;
  training::Adam optimizer(model->parameter_groups(5e-4f), adam);
  const Adjacency on_device = a.to(device);
  training::TrainingData data{training::GraphInput(on_device), task.features.to(device), task.labels.to(device),
                              task.train_index.to(device), task.valid_index.to(device), task.test_index.to(device)};
  training::TrainerOptions trainer_options;
  trainer_options.epochs = kTrainingEpochs;
  trainer_options.restore_best = false;
  training::Trainer trainer(*model, optimizer, data, trainer_options);
  TrainingRun run;
  for (int epoch = 0; epoch < kTrainingEpochs; ++epoch) run.losses.push_back(trainer.run_epoch().train_loss);
  for (const Tensor& parameter : model->parameters()) run.parameters.push_back(parameter.detach().to(Device::cpu()));
  run.evaluation = trainer.evaluate();
  return run;
}

// One rank's training of its shard of `a` (train_rank).
inline TrainingRun rank_run(distributed::Communicator& communicator, const distributed::GraphPartition& partition,
                            const Task& task, int64_t hidden, distributed::HaloMode mode, const std::string& kind,
                            training::Precision precision = training::Precision::Fp32) {
  distributed::RankTrainingOptions options = comparison_options(hidden, kind, precision);
  options.halo = mode;
  const distributed::RankShard shard =
      distributed::make_rank_shard(partition, communicator.rank(), task.features, task.labels, task.train_index,
                                   task.valid_index, task.test_index, task.classes);
  const distributed::RankTrainingResult result = distributed::train_rank(communicator, shard, options);
  TrainingRun run;
  for (const distributed::RankEpoch& epoch : result.epochs) run.losses.push_back(epoch.train_loss);
  run.parameters = result.parameters;
  run.evaluation = result.final;
  return run;
}

// Every rank of `ranks` trains its share on the communicator's device.
template <typename Ranks>
std::vector<TrainingRun> distributed_runs(Ranks& ranks, const Adjacency& a, const Task& task, int64_t hidden,
                                          distributed::HaloMode mode,
                                          const std::string& kind = "gcn",
                                          training::Precision precision = training::Precision::Fp32) {
  const distributed::GraphPartition partition = distributed::partition_graph(a, ranks.size());
  std::vector<TrainingRun> runs(static_cast<std::size_t>(ranks.size()));
  ranks.run([&](distributed::Communicator& communicator) {
    runs[static_cast<std::size_t>(communicator.rank())] =
        rank_run(communicator, partition, task, hidden, mode, kind, precision);
  });
  return runs;
}

// Same losses epoch by epoch, parameters and metrics within `tolerance`.
inline void check_same_training(const TrainingRun& reference, const std::vector<TrainingRun>& runs,
                                double tolerance) {
  for (const TrainingRun& run : runs) {
    REQUIRE(run.losses.size() == reference.losses.size());
    for (std::size_t epoch = 0; epoch < run.losses.size(); ++epoch) {
      CAPTURE(epoch);
      CHECK(run.losses[epoch] == doctest::Approx(reference.losses[epoch]).epsilon(tolerance));
    }
    REQUIRE(run.parameters.size() == reference.parameters.size());
    for (std::size_t i = 0; i < run.parameters.size(); ++i) {
      CAPTURE(i);
      CHECK(relative_error(run.parameters[i], reference.parameters[i]) < tolerance);
    }
    // Accuracy may move by a row or two where two logits nearly tie (GPU sums run in another order).
    const double slack = 20 * tolerance;
    CHECK(std::abs(run.evaluation.validation.accuracy - reference.evaluation.validation.accuracy) <= slack);
    CHECK(std::abs(run.evaluation.train.macro_f1 - reference.evaluation.train.macro_f1) <= slack);
    CHECK(run.evaluation.test.loss == doctest::Approx(reference.evaluation.test.loss).epsilon(tolerance));
  }
}

}  // namespace sgnn::testing
