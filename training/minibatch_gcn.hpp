// GCN for mini-batch training: GCNConv on sampled blocks with a self loop
// per destination and row normalisation, as DGL's GraphConv(norm="right")
// on graphs with self loops:
//   out_v = W · (x_v + Σ_{u in N(v)} x_u) / (|N(v)| + 1) + b
// over the sampled neighbours N(v) (all of them in layer-wise inference,
// where this is D̃⁻¹·Ã·X·W of the whole graph). The full-graph GCN's
// symmetric D̃^-1/2 Ã D̃^-1/2 needs every source's degree in the whole graph;
// a sampled block knows its destinations' sampled degrees only, so the
// mini-batch GCN averages over them (a choice stated in docs/sampling.md).
// ReLU and dropout between layers, no dropout on the input; the layer's
// product comes after the aggregation (a block has fewer destinations than
// sources). The BlockModel contract: training/block_model.hpp.
#pragma once

#include <memory>
#include <vector>

#include "training/block_model.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

class GcnBlockModel : public BlockModel {
 public:
  // InvalidArgument on sizes <= 0 or dropout outside [0, 1). The dropout
  // masks come from `generator`, which must outlive the model.
  GcnBlockModel(const BlockModelConfig& config, Generator& generator);
  Tensor forward(const std::vector<sampling::Block>& blocks, const Tensor& x) override;
  Tensor layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                       const Tensor& x_destination) override;
  int64_t num_layers() const override { return static_cast<int64_t>(layers_.size()); }
  int64_t in_features() const override { return config_.in_features; }
  int64_t out_width(int64_t layer) const override {
    return layers_.at(static_cast<std::size_t>(layer))->weight().size(1);
  }

 private:
  BlockModelConfig config_;
  Generator* generator_;
  std::vector<std::shared_ptr<Linear>> layers_;
};

// (x_destination + Σ_{u in row v} x_source[u]) / (row length + 1): the mean
// over a row's sources and its destination, in x's dtype (sums in float).
// x_source [adjacency.num_cols(), F], x_destination [adjacency.num_rows(), F].
Tensor mean_with_self(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination);

}  // namespace sgnn::training
