#include "distributed/rank_training.hpp"

#include <chrono>

#include "core/memory.hpp"
#include "distributed/distributed_gcn.hpp"
#include "graph_io/feature_transforms.hpp"
#include "training/experiment.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::distributed {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

training::ModelDescription rank_model_description(const RankTrainingOptions& options, int64_t features,
                                                  int64_t classes) {
  const training::ModelEntry& entry = training::model_entry(options.model);
  return training::describe_model(entry, features, classes,
                                  training::resolve_hyperparameters(entry, "", options.hyperparameters),
                                  options.row_normalize_features ? graph_io::FeatureTransform::RowNormalize
                                                                 : graph_io::FeatureTransform::None,
                                  options.precision);
}

RankTrainingResult train_rank(Communicator& communicator, const RankShard& shard, const RankTrainingOptions& options,
                              const std::function<void(const RankEpoch&)>& on_epoch) {
  const RankPartition& part = shard.partition;
  SGNN_CHECK(part.rank == communicator.rank() && part.num_ranks() == communicator.size(), "train_rank: the shard of rank ",
             part.rank, " of ", part.num_ranks(), " on the communicator of rank ", communicator.rank(), " of ",
             communicator.size());
  SGNN_CHECK(shard.num_classes >= 2, "train_rank: the task needs at least 2 classes, got ", shard.num_classes);
  const training::TrainingSettings settings = training::training_settings(
      training::resolve_hyperparameters(training::model_entry(options.model), "", options.hyperparameters));
  const Device device = communicator.device();
  RankTrainingResult result;
  result.halo = options.halo.value_or(choose_halo_mode(halo_volume(part)));

  // Same seed everywhere: equal initial weights. Dropout masks then differ per rank (distributed_gcn.hpp).
  Generator generator(options.seed);
  const auto model =
      training::make_model(rank_model_description(options, shard.features.size(1), shard.num_classes), generator);
  check_row_partition_layers(*model);
  model->to(device);
  ops::AdamHyperparameters adam;
  adam.learning_rate = settings.learning_rate;
  training::Adam optimizer(model->parameter_groups(settings.weight_decay), adam);
  RankData data = rank_data(shard, device);
  // bf16: the normalisation writes bfloat16 directly (the model converts features used as stored).
  if (options.row_normalize_features) {
    data.features = graph_io::normalize_feature_rows(data.features, training::activation_dtype(options.precision));
  }
  const HaloExchange halo(part, result.halo, device);
  DistributedTrainer trainer(*model, optimizer, data, halo, communicator);
  memory::synchronize(device);
  for (int64_t epoch = 1; epoch <= settings.epochs; ++epoch) {
    const int64_t bytes_before = communicator.bytes_sent();
    const Clock::time_point start = Clock::now();
    const double loss = trainer.train_step();  // ends with item(): the step is complete here
    const RankEpoch record{epoch, loss, std::chrono::duration<double, std::milli>(Clock::now() - start).count(),
                           communicator.bytes_sent() - bytes_before};
    result.epochs.push_back(record);
    if (on_epoch) on_epoch(record);
  }
  result.final = trainer.evaluate();
  for (const Tensor& parameter : model->parameters()) result.parameters.push_back(parameter.detach().to(Device::cpu()));
  return result;
}

}  // namespace sgnn::distributed
