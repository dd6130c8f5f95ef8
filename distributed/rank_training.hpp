// One rank's part of distributed full-graph training, whatever started the
// ranks (threads of one process over NCCL or host memory, or processes over
// MPI or NCCL): build the model replica from the seed, move the rank's shard
// to the communicator's device, train `epochs` steps with the
// DistributedTrainer and evaluate at the end. The engine behind
// train_gcn_multi_gpu (multi_gpu_training.hpp) and train_gcn_distributed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "distributed/communicator.hpp"
#include "distributed/halo_plan.hpp"
#include "distributed/rank_shard.hpp"
#include "training/nn/models.hpp"
#include "training/trainer.hpp"

namespace sgnn::distributed {

struct RankTrainingOptions {
  // A registered kind whose layers run on row partitions (distributed_gcn.hpp:
  // GCNConv, GATConv and row-wise layers; of the built-in kinds gcn and gat).
  std::string model = "gcn";
  // The model's hyperparameters by name (training::resolve_hyperparameters;
  // those left out take the kind's general defaults). epochs, lr and
  // weight_decay are used of the training ones (patience and monitor are
  // not: every epoch runs).
  std::map<std::string, std::string> hyperparameters;
  uint64_t seed = 0;       // initial weights (equal on every rank) and dropout masks (each rank's own)
  std::optional<HaloMode> halo;  // unset: choose_halo_mode(halo_volume(shard.partition))
  bool row_normalize_features = true;  // each feature row scaled to sum 1 (row-wise: as on one device)
  // fp32, or bf16 mixed precision (training/nn/precision.hpp): bfloat16
  // activations, float32 masters whose gradients are summed over ranks.
  training::Precision precision = training::Precision::Fp32;
};

struct RankEpoch {
  int64_t epoch = 0;        // 1-based
  double train_loss = 0;    // global mean over the training rows (equal on every rank)
  double epoch_ms = 0;      // this rank's wall time of the step (it ends in a collective)
  int64_t bytes_sent = 0;   // this rank's Communicator::bytes_sent during the step
};

struct RankTrainingResult {
  HaloMode halo = HaloMode::SendRecv;
  std::vector<RankEpoch> epochs;
  training::Evaluation final;        // over all ranks' rows, after the last epoch
  std::vector<Tensor> parameters;    // host copies after the last epoch (equal on every rank)
};

// The description of the model replica train_rank builds (make_model of it
// with the same seed gives a single-device run the same initial weights).
training::ModelDescription rank_model_description(const RankTrainingOptions& options, int64_t features,
                                                  int64_t classes);

// Collective: every rank calls it with its own shard and the same options.
// on_epoch runs on the calling thread after each step. InvalidArgument on a
// shard that does not fit the communicator (rank or size) or the options, or
// a model with a layer row partitions cannot run (naming it).
RankTrainingResult train_rank(Communicator& communicator, const RankShard& shard, const RankTrainingOptions& options,
                              const std::function<void(const RankEpoch&)>& on_epoch = {});

}  // namespace sgnn::distributed
