// Full-graph GCN and GAT training on several ranks: every rank holds its row
// block of the graph (partition.hpp) and a replica of the model; per GCNConv
// the layer input's halo is exchanged, aggregated by the local SpMM, and in
// backward the halo gradients flow back to their owners (halo_exchange.hpp).
// Per GATConv the projected rows W·x are exchanged: the attention scores of
// a block's edges need the halo's projections, and since the edges' targets
// (the rows) are local after a row partition, each row's edge softmax and
// aggregation stay on its rank. Weight
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
#include "distributed/rank_shard.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

namespace sgnn::distributed {

// The model's layers in order on the rank's rows: GCNConv aggregates through
// the halo exchange and the local SpMM (as GCNConv::forward, on the narrower
// side), GATConv attends over the block with the halo of its projections
// (GATConv::forward_block), every other layer runs as is (row-wise).
// `model` is a GCN or GAT (make_model; check_row_partition_layers); the block's adjacency may
// carry GCN-normalised values, which GAT ignores (it uses the pattern).
Tensor distributed_forward(training::Model& model, const RankData& data, const HaloExchange& halo,
                           Communicator& communicator, const Tensor& x);

// InvalidArgument naming the layer when `model` has one that row partitions
// cannot run: a layer that reads the graph other than GCNConv and GATConv
// (only row-wise layers may stand beside them: Dropout, ReLU, ELU, Linear).
// Of the built-in kinds, gcn and gat qualify.
void check_row_partition_layers(const training::Model& model);

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
