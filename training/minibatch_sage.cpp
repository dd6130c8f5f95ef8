#include "training/minibatch_sage.hpp"

#include <string>

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/dropout.hpp"

namespace sgnn::training {

SageModel::SageModel(const BlockModelConfig& config, Generator& generator, SAGEAggregator aggregator)
    : config_(config), generator_(&generator) {
  require_valid_config(config, "SageModel");
  int64_t width = config.in_features;
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    const int64_t out = layer + 1 == config.layers ? config.classes : config.hidden;
    layers_.push_back(register_module(std::to_string(layer), std::make_shared<SAGEConv>(width, out, generator, SAGEOptions{.aggregator = aggregator})));
    width = out;
  }
  set_precision(config.precision);
}

Tensor SageModel::forward(const std::vector<sampling::Block>& blocks, const Tensor& x) {
  require_block_per_layer(blocks, num_layers(), "SageModel");
  Tensor h = ops::cast(x, activation_dtype());
  for (int64_t layer = 0; layer < num_layers(); ++layer) {
    h = layers_[static_cast<std::size_t>(layer)]->forward(blocks[static_cast<std::size_t>(layer)], h);
    if (layer + 1 < num_layers()) {
      h = ops::dropout(ops::relu(h), config_.dropout, is_training(), *generator_);
    }
  }
  return h;
}

Tensor SageModel::layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                                const Tensor& x_destination) {
  SGNN_CHECK(layer >= 0 && layer < num_layers(), "SageModel: layer ", layer, " of ", num_layers());
  const Tensor h = layers_[static_cast<std::size_t>(layer)]->forward(adjacency, ops::cast(x_source, activation_dtype()),
                                                                     ops::cast(x_destination, activation_dtype()));
  return layer + 1 < num_layers() ? ops::relu(h) : h;
}

}  // namespace sgnn::training
