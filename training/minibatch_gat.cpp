#include "training/minibatch_gat.hpp"

#include <string>

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/dropout.hpp"
#include "sampling/destination_rows.hpp"

namespace sgnn::training {

GatBlockModel::GatBlockModel(const BlockModelConfig& config, Generator& generator)
    : config_(config), generator_(&generator) {
  require_valid_config(config, "GatBlockModel");
  SGNN_CHECK(config.heads > 0 && config.output_heads > 0, "GatBlockModel: heads (", config.heads,
             ") and output heads (", config.output_heads, ") must be positive");
  int64_t width = config.in_features;
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    const bool last = layer + 1 == config.layers;
    GATOptions options;
    options.heads = last ? config.output_heads : config.heads;
    options.concat = !last;
    options.attention_dropout = config.dropout;
    layers_.push_back(register_module(
        std::to_string(layer),
        std::make_shared<GATConv>(width, last ? config.classes : config.hidden, generator, options)));
    width = layers_.back()->output_features();
  }
  set_precision(config.precision);
}

Tensor GatBlockModel::forward(const std::vector<sampling::Block>& blocks, const Tensor& x) {
  require_block_per_layer(blocks, num_layers(), "GatBlockModel");
  Tensor h = ops::cast(x, activation_dtype());
  for (int64_t layer = 0; layer < num_layers(); ++layer) {
    const sampling::Block& block = blocks[static_cast<std::size_t>(layer)];
    h = ops::dropout(h, config_.dropout, is_training(), *generator_);
    h = layer_forward(layer, block.adjacency, h, sampling::destination_rows(h, block.num_destinations()));
  }
  return h;
}

Tensor GatBlockModel::layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                                    const Tensor& x_destination) {
  SGNN_CHECK(layer >= 0 && layer < num_layers(), "GatBlockModel: layer ", layer, " of ", num_layers());
  const Tensor out = layers_[static_cast<std::size_t>(layer)]->forward(
      adjacency, ops::cast(x_source, activation_dtype()), ops::cast(x_destination, activation_dtype()));
  return layer + 1 < num_layers() ? ops::elu(out) : out;
}

}  // namespace sgnn::training
