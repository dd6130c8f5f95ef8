// GraphSAGE for mini-batch training, as PyG's ogbn-products example builds
// it: SAGEConv(in, hidden) → ReLU → dropout → ... → SAGEConv(hidden,
// classes), one layer per block (sampling/block.hpp), no dropout on the
// input. Logits [destinations of the last block, classes] in the model's
// activation dtype (the loss applies the softmax).
//
// layer_forward() runs one layer (with its ReLU, without dropout) on any
// adjacency with mean weights: the layer-wise inference of
// training/minibatch_inference.hpp.
#pragma once

#include <memory>
#include <vector>

#include "core/generator.hpp"
#include "training/optimizer.hpp"
#include "training/nn/sage_conv.hpp"

namespace sgnn::training {

struct SageConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 256;
  int64_t layers = 3;
  float dropout = 0.5f;
  Precision precision = Precision::Fp32;
};

class SageModel : public Module {
 public:
  // InvalidArgument on sizes <= 0 or dropout outside [0, 1). The dropout
  // masks come from `generator`, which must outlive the model.
  SageModel(const SageConfig& config, Generator& generator);
  // blocks: one per layer, input layer first; x [blocks[0].num_sources(), in]
  // float32 or bfloat16 (converted to the model's dtype first).
  Tensor forward(const std::vector<sampling::Block>& blocks, const Tensor& x);
  // Layer `layer` and its ReLU (not the last layer's), no dropout.
  Tensor layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination);
  int64_t num_layers() const { return static_cast<int64_t>(layers_.size()); }
  int64_t out_width(int64_t layer) const { return layers_.at(static_cast<std::size_t>(layer))->out_features(); }
  const SageConfig& config() const { return config_; }
  // One group with every parameter (weight_decay), carrying the bfloat16
  // compute copies in BFloat16.
  std::vector<ParameterGroup> parameter_groups(float weight_decay) const;

 private:
  SageConfig config_;
  Generator* generator_;
  std::vector<std::shared_ptr<SAGEConv>> layers_;
};

}  // namespace sgnn::training
