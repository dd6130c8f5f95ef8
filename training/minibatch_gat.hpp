// GAT for mini-batch training, the full-graph GAT's layers on sampled
// blocks: dropout → GATConv(in, hidden, heads, concat) → ELU → ... →
// dropout → GATConv(·, classes, output_heads, mean over heads), with
// attention dropout at the same rate. Attention runs over a block's
// entries, so the graph it samples from carries a self loop per node
// (MinibatchOptions::self_loops, set for this model): a destination
// attends to itself when its loop is sampled, as DGL's mini-batch GAT
// (dgl.add_self_loop before sampling), and always in layer-wise inference,
// where every neighbour is taken. The BlockModel contract:
// training/block_model.hpp; layer_forward() runs one layer with its ELU
// (not the last layer's), without dropout.
#pragma once

#include <memory>
#include <vector>

#include "training/block_model.hpp"
#include "training/nn/gat_conv.hpp"

namespace sgnn::training {

class GatBlockModel : public BlockModel {
 public:
  // InvalidArgument on sizes or heads <= 0, or dropout outside [0, 1). The
  // dropout masks come from `generator`, which must outlive the model.
  GatBlockModel(const BlockModelConfig& config, Generator& generator);
  Tensor forward(const std::vector<sampling::Block>& blocks, const Tensor& x) override;
  Tensor layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                       const Tensor& x_destination) override;
  int64_t num_layers() const override { return static_cast<int64_t>(layers_.size()); }
  int64_t in_features() const override { return config_.in_features; }
  int64_t out_width(int64_t layer) const override {
    return layers_.at(static_cast<std::size_t>(layer))->output_features();
  }

 private:
  BlockModelConfig config_;
  Generator* generator_;
  std::vector<std::shared_ptr<GATConv>> layers_;
};

}  // namespace sgnn::training
