// GraphSAGE for mini-batch training, as PyG's ogbn-products example builds
// it: SAGEConv(in, hidden) → ReLU → dropout → ... → SAGEConv(hidden,
// classes), one layer per block (sampling/block.hpp), no dropout on the
// input; the mean or the max-pool aggregator (training/nn/sage_conv.hpp).
// The BlockModel contract (training/block_model.hpp): logits
// [destinations of the last block, classes] in the model's activation
// dtype; layer_forward() runs one layer with its ReLU (not the last
// layer's), without dropout.
#pragma once

#include <memory>
#include <vector>

#include "training/block_model.hpp"
#include "training/nn/sage_conv.hpp"

namespace sgnn::training {

class SageModel : public BlockModel {
 public:
  // InvalidArgument on sizes <= 0 or dropout outside [0, 1). The dropout
  // masks come from `generator`, which must outlive the model.
  SageModel(const BlockModelConfig& config, Generator& generator,
            SAGEAggregator aggregator = SAGEAggregator::Mean);
  Tensor forward(const std::vector<sampling::Block>& blocks, const Tensor& x) override;
  Tensor layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                       const Tensor& x_destination) override;
  int64_t num_layers() const override { return static_cast<int64_t>(layers_.size()); }
  int64_t in_features() const override { return config_.in_features; }
  int64_t out_width(int64_t layer) const override { return layers_.at(static_cast<std::size_t>(layer))->out_features(); }
  const BlockModelConfig& config() const { return config_; }

 private:
  BlockModelConfig config_;
  Generator* generator_;
  std::vector<std::shared_ptr<SAGEConv>> layers_;
};

}  // namespace sgnn::training
