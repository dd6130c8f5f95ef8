// Single-device training against distributed training of the same GCN (same
// seed, dropout off) on any ranks runner with run(body(Communicator&))
// (ThreadRanks on the host, NcclRanks on GPUs). Shared by the CPU tier and
// the GPU tier's NCCL test.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "distributed/distributed_gcn.hpp"
#include "tests/distributed/distributed_graphs.hpp"
#include "training/models.hpp"
#include "training/trainer.hpp"

namespace sgnn::testing {

inline constexpr uint64_t kTrainingSeed = 42;
inline constexpr int kTrainingEpochs = 6;

inline training::GcnConfig comparison_config(const Task& task, int64_t hidden) {
  training::GcnConfig config;
  config.in_features = task.features.size(1);
  config.classes = task.classes;
  config.hidden = hidden;
  config.dropout = 0.0f;  // masks would differ between one and several ranks
  return config;
}

inline ops::AdamHyperparameters comparison_adam() {
  ops::AdamHyperparameters hyperparameters;
  hyperparameters.learning_rate = 0.05f;
  return hyperparameters;
}

struct TrainingRun {
  std::vector<double> losses;
  std::vector<Tensor> parameters;  // host copies after the last epoch
  training::Evaluation evaluation;
};

// The library's Trainer on one device (`a` and `task` on the host).
inline TrainingRun single_device_run(const Adjacency& a, const Task& task, int64_t hidden, Device device) {
  Generator generator(kTrainingSeed);
  const auto model = training::make_gcn(comparison_config(task, hidden), generator);
  model->to(device);
  training::Adam optimizer(model->parameter_groups(5e-4f), comparison_adam());
  const Adjacency on_device = a.to(device);
  training::TrainingData data{training::GraphInput(on_device), task.features.to(device), task.labels.to(device),
                              task.train_index.to(device), task.valid_index.to(device), task.test_index.to(device)};
  training::TrainerOptions options;
  options.epochs = kTrainingEpochs;
  options.restore_best = false;
  training::Trainer trainer(*model, optimizer, data, options);
  TrainingRun run;
  for (int epoch = 0; epoch < kTrainingEpochs; ++epoch) run.losses.push_back(trainer.run_epoch().train_loss);
  for (const Tensor& parameter : model->parameters()) run.parameters.push_back(parameter.detach().to(Device::cpu()));
  run.evaluation = trainer.evaluate();
  return run;
}

// Every rank of `ranks` trains its share on the communicator's device.
template <typename Ranks>
std::vector<TrainingRun> distributed_runs(Ranks& ranks, const Adjacency& a, const Task& task, int64_t hidden,
                                          distributed::HaloMode mode) {
  using namespace sgnn::distributed;
  const GraphPartition partition = partition_graph(a, ranks.size());
  std::vector<TrainingRun> runs(static_cast<std::size_t>(ranks.size()));
  ranks.run([&](Communicator& communicator) {
    const int rank = communicator.rank();
    const Device device = communicator.device();
    Generator generator(kTrainingSeed);
    const auto model = training::make_gcn(comparison_config(task, hidden), generator);
    model->to(device);
    training::Adam optimizer(model->parameter_groups(5e-4f), comparison_adam());
    const RankData data = make_rank_data(partition, rank, task.features, task.labels, task.train_index,
                                         task.valid_index, task.test_index, device);
    const HaloExchange halo(partition, rank, mode, device);
    DistributedTrainer trainer(*model, optimizer, data, halo, communicator);
    TrainingRun& run = runs[static_cast<std::size_t>(rank)];
    for (int epoch = 0; epoch < kTrainingEpochs; ++epoch) run.losses.push_back(trainer.train_step());
    for (const Tensor& parameter : model->parameters()) run.parameters.push_back(parameter.detach().to(Device::cpu()));
    run.evaluation = trainer.evaluate();
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
