#include "training/block_model.hpp"

namespace sgnn::training {

void require_valid_config(const BlockModelConfig& config, const char* model) {
  SGNN_CHECK(config.in_features > 0 && config.classes > 0 && config.hidden > 0 && config.layers >= 1, model,
             ": in_features (", config.in_features, "), classes (", config.classes, "), hidden (", config.hidden,
             ") and layers (", config.layers, ") must be positive");
  SGNN_CHECK(config.dropout >= 0.0f && config.dropout < 1.0f, model, ": dropout ", config.dropout,
             " outside [0, 1)");
}

void require_block_per_layer(const std::vector<sampling::Block>& blocks, int64_t layers, const char* model) {
  SGNN_CHECK(static_cast<int64_t>(blocks.size()) == layers, model, ": ", blocks.size(), " blocks for ", layers,
             " layers (one block per layer)");
}

std::vector<ParameterGroup> BlockModel::parameter_groups(float weight_decay) const {
  ParameterGroup group;
  group.weight_decay = weight_decay;
  group.parameters = parameters();
  group.compute_copies = compute_copies();
  return {group};
}

}  // namespace sgnn::training
