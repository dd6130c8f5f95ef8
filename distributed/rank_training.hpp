// One rank's part of distributed full-graph training, whatever started the
// ranks (threads of one process over NCCL or host memory, or processes over
// MPI or NCCL): build the model replica from the seed, move the rank's shard
// to the communicator's device, train `epochs` steps with the
// DistributedTrainer and evaluate at the end. The engine behind
// train_gcn_multi_gpu (multi_gpu_training.hpp) and train_gcn_distributed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "distributed/communicator.hpp"
#include "distributed/halo_plan.hpp"
#include "distributed/rank_shard.hpp"
#include "training/experiment.hpp"

namespace sgnn::distributed {

struct RankTrainingOptions {
  training::ModelKind model = training::ModelKind::Gcn;
  // epochs, hidden, heads, output_heads, learning_rate, weight_decay, dropout,
  // projected_dropout are used (patience and monitor are not: every epoch runs).
  training::Hyperparameters hyperparameters;
  int64_t gcn_layers = 2;  // GCNConv layers of a GCN
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

// The model replica train_rank builds (make_gcn or make_gat from the options);
// the same call gives a single-device run the same initial weights.
std::shared_ptr<training::Model> make_rank_model(const RankTrainingOptions& options, int64_t features, int64_t classes,
                                                 Generator& generator);

// Collective: every rank calls it with its own shard and the same options.
// on_epoch runs on the calling thread after each step. InvalidArgument on a
// shard that does not fit the communicator (rank or size) or the options.
RankTrainingResult train_rank(Communicator& communicator, const RankShard& shard, const RankTrainingOptions& options,
                              const std::function<void(const RankEpoch&)>& on_epoch = {});

}  // namespace sgnn::distributed
