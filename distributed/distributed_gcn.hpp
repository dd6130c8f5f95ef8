// Full-graph GCN training on several ranks: every rank holds its row block of
// the graph (partition.hpp) and a replica of the model; per GCNConv the layer
// input's halo is exchanged, aggregated by the local SpMM, and in backward the
// halo gradients flow back to their owners (halo_exchange.hpp). Weight
// gradients are summed over ranks before the optimizer step, so replicas stay
// equal and the step equals single-device training:
//   the loss is the mean over ALL training rows: rank r contributes
//   CE_mean(local train rows) · n_r / n_total, whose sum over ranks is the
//   global mean, and so is the sum of the ranks' gradients.
// Every rank must build its model from the same seed (same initial weights).
// Dropout masks come from each rank's own generator, so with dropout > 0 the
// masks differ from a single-device run (the comparison tests use 0).
#pragma once

#include "distributed/communicator.hpp"
#include "distributed/halo_exchange.hpp"
#include "training/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

namespace sgnn::distributed {

// One rank's share of a node-classification task, on the rank's device.
struct RankData {
  Adjacency adjacency;  // the rank's block [num_rows, num_rows + num_halo]
  Tensor features;      // [num_rows, F] float32
  Tensor labels;        // [num_rows] int32
  Tensor train_index;   // int32 local row ids (maybe no rows)
  Tensor valid_index;
  Tensor test_index;    // undefined when the task has no test split
  int64_t global_train_rows = 0;
};

// Slices the global task (splits: int32 global row ids) for `rank`.
// InvalidArgument on inconsistent shapes or dtypes. Pass host tensors when
// ranks run concurrently: copying from another GPU waits on that GPU's
// stream, where a collective may be waiting for this rank (a deadlock).
RankData make_rank_data(const GraphPartition& partition, int rank, const Tensor& features, const Tensor& labels,
                        const Tensor& train_index, const Tensor& valid_index, const Tensor& test_index, Device device);

// The model's layers in order on the rank's rows: GCNConv aggregates through
// the halo exchange and the local SpMM (as GCNConv::forward, on the narrower
// side), every other layer runs as is. `model` must be a GCN (make_gcn);
// InvalidArgument on other graph layers.
Tensor distributed_forward(training::Model& model, const RankData& data, const HaloExchange& halo,
                           Communicator& communicator, const Tensor& x);

class DistributedTrainer {
 public:
  DistributedTrainer(training::Model& model, training::Optimizer& optimizer, const RankData& data,
                     const HaloExchange& halo, Communicator& communicator);
  // One optimizer step; returns the global training loss (equal on every rank).
  double train_step();
  // Metrics over all ranks' rows (equal on every rank); eval mode, no tape.
  training::Evaluation evaluate();

 private:
  training::Model& model_;
  training::Optimizer& optimizer_;
  const RankData& data_;
  const HaloExchange& halo_;
  Communicator& communicator_;
};

}  // namespace sgnn::distributed
