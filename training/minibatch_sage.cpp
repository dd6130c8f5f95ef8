#include "training/minibatch_sage.hpp"

#include <string>

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/dropout.hpp"

namespace sgnn::training {

SageModel::SageModel(const BlockModelConfig& config, Generator& generator, SAGEAggregator aggregator)
    : config_(config), generator_(&generator) {
  SGNN_CHECK(config.in_features > 0 && config.classes > 0 && config.hidden > 0 && config.layers >= 1,
             "SageModel: in_features (", config.in_features, "), classes (", config.classes, "), hidden (",
             config.hidden, ") and layers (", config.layers, ") must be positive");
  SGNN_CHECK(config.dropout >= 0.0f && config.dropout < 1.0f, "SageModel: dropout ", config.dropout,
             " outside [0, 1)");
  int64_t width = config.in_features;
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    const int64_t out = layer + 1 == config.layers ? config.classes : config.hidden;
    layers_.push_back(register_module(std::to_string(layer), std::make_shared<SAGEConv>(width, out, generator, SAGEOptions{.aggregator = aggregator})));
    width = out;
  }
  set_precision(config.precision);
}

Tensor SageModel::forward(const std::vector<sampling::Block>& blocks, const Tensor& x) {
  SGNN_CHECK(static_cast<int64_t>(blocks.size()) == num_layers(), "SageModel: ", blocks.size(),
             " blocks for ", num_layers(), " layers (one block per layer)");
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
