#include "training/minibatch_gcn.hpp"

#include <string>

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/gspmm.hpp"
#include "sampling/destination_rows.hpp"

namespace sgnn::training {

Tensor mean_with_self(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination) {
  SGNN_CHECK(x_destination.dim() == 2 && x_destination.size(0) == adjacency.num_rows(),
             "mean_with_self: x_destination must be [", adjacency.num_rows(), ", F] (one row a destination), got ",
             shape_str(x_destination.shape()));
  const Tensor sums = ops::aggregate(adjacency, x_source, ops::ReduceKind::Sum);
  // Each row's entry count + 1, in float32 (a bfloat16 count is exact only up to 256 entries): the sum of ones.
  const Tensor ones = Tensor::full({adjacency.num_cols(), 1}, 1.0, DType::Float32, adjacency.device());
  const Tensor counts = ops::aggregate(adjacency, ones, ops::ReduceKind::Sum);
  const Tensor one = Tensor::full({}, 1.0, DType::Float32, adjacency.device());
  return ops::div(ops::add(sums, x_destination), ops::add(counts, one));
}

GcnBlockModel::GcnBlockModel(const BlockModelConfig& config, Generator& generator)
    : config_(config), generator_(&generator) {
  require_valid_config(config, "GcnBlockModel");
  int64_t width = config.in_features;
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    const int64_t out = layer + 1 == config.layers ? config.classes : config.hidden;
    layers_.push_back(register_module(std::to_string(layer), std::make_shared<Linear>(width, out, generator)));
    width = out;
  }
  set_precision(config.precision);
}

Tensor GcnBlockModel::forward(const std::vector<sampling::Block>& blocks, const Tensor& x) {
  require_block_per_layer(blocks, num_layers(), "GcnBlockModel");
  Tensor h = ops::cast(x, activation_dtype());
  for (int64_t layer = 0; layer < num_layers(); ++layer) {
    const sampling::Block& block = blocks[static_cast<std::size_t>(layer)];
    h = layer_forward(layer, block.adjacency, h, sampling::destination_rows(h, block.num_destinations()));
    if (layer + 1 < num_layers()) h = ops::dropout(h, config_.dropout, is_training(), *generator_);
  }
  return h;
}

Tensor GcnBlockModel::layer_forward(int64_t layer, const Adjacency& adjacency, const Tensor& x_source,
                                    const Tensor& x_destination) {
  SGNN_CHECK(layer >= 0 && layer < num_layers(), "GcnBlockModel: layer ", layer, " of ", num_layers());
  const Tensor mean = mean_with_self(adjacency, ops::cast(x_source, activation_dtype()),
                                     ops::cast(x_destination, activation_dtype()));
  const Tensor out = layers_[static_cast<std::size_t>(layer)]->forward(mean);
  return layer + 1 < num_layers() ? ops::relu(out) : out;
}

}  // namespace sgnn::training
