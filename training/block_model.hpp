// BlockModel: a GNN that mini-batch training drives (MinibatchTrainer,
// training/minibatch_trainer.hpp) and layer-wise inference evaluates
// (infer_layerwise, training/minibatch_inference.hpp). One layer per
// sampled block (sampling/block.hpp), as DGL's block models and PyG's
// NeighborLoader models are written. SageModel, GcnBlockModel and
// GatBlockModel (training/minibatch_{sage,gcn,gat}.hpp) are built in;
// docs/extending.md writes another in a few lines.
//
//   forward(blocks, x)  blocks: one per layer, input layer first; x
//       [blocks[0].num_sources(), in_features()], float32 or bfloat16 ->
//       logits [blocks.back().num_destinations(), out_width(last)] in the
//       model's activation dtype (the loss applies the softmax).
//   layer_forward(layer, adjacency, x_source, x_destination)  layer `layer`
//       and what follows it in forward() except dropout: adjacency rows are
//       the destinations and columns the sources (a block's adjacency, or
//       rows of the whole graph: sampling::neighbourhood_rows), x_source
//       [adjacency.num_cols(), width], x_destination the destinations' own
//       rows [adjacency.num_rows(), width]. In eval mode, forward() on
//       blocks sampled with every neighbour must equal layer_forward() run
//       layer by layer. Aggregate over the adjacency's pattern with
//       ops::aggregate or ops::gspmm (any reduce); its stored values are the
//       mean weights 1 / (row length).
//   num_layers(), in_features(), out_width(layer)  the widths.
//   parameter_groups(weight_decay)  the optimizer's groups: by default one
//       group of every parameter with their bfloat16 compute copies.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/adjacency.hpp"
#include "core/generator.hpp"
#include "sampling/block.hpp"
#include "training/nn/module.hpp"
#include "training/nn/parameter_group.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

class BlockModel : public Module {
 public:
  virtual Tensor forward(const std::vector<sampling::Block>& blocks, const Tensor& x) = 0;
  virtual Tensor layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                               const Tensor& x_destination) = 0;
  virtual int64_t num_layers() const = 0;
  virtual int64_t in_features() const = 0;
  virtual int64_t out_width(int64_t layer) const = 0;
  virtual std::vector<ParameterGroup> parameter_groups(float weight_decay) const;
};

// What the mini-batch experiment knows when it builds a model: the
// dataset's widths and the run's options (one layer per fanout).
struct BlockModelConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 256;
  int64_t layers = 3;
  float dropout = 0.5f;
  int64_t heads = 1;         // attention heads of the hidden layers (GAT), concatenated
  int64_t output_heads = 1;  // of the last layer, averaged
  Precision precision = Precision::Fp32;
};

// The checks of every built-in block model's constructor and forward():
// InvalidArgument naming `model` for in_features, classes, hidden or layers
// not positive or dropout outside [0, 1); and unless there is one block per
// layer.
void require_valid_config(const BlockModelConfig& config, const char* model);
void require_block_per_layer(const std::vector<sampling::Block>& blocks, int64_t layers, const char* model);

// Builds a model from the config, drawing its weights and dropout masks
// from the generator (which outlives the model). Never returns null.
using BlockModelFactory = std::function<std::unique_ptr<BlockModel>(const BlockModelConfig&, Generator&)>;

}  // namespace sgnn::training
