// What the built-in attention models (gat, gatv2, transformer) share: the
// architecture of Veličković et al. 2018, its four hyperparameters and the
// shape of its memory estimate. The models differ in the layer, its costs
// and the graph form it attends over (gat_model.cpp, gatv2_model.cpp,
// transformer_model.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "training/nn/basic_layers.hpp"
#include "training/nn/hyperparameters.hpp"
#include "training/nn/model_registry.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

// One attention layer: in features -> heads x out features, concatenated
// (the hidden layer) or averaged over the heads (the output layer).
using AttentionLayerMaker =
    std::function<std::shared_ptr<Layer>(int64_t in_features, int64_t out_per_head, int64_t heads, bool concat)>;

// dropout → layer(in, hidden, heads, concat) → ELU → dropout →
// layer(hidden · heads, classes, output_heads, mean over heads), with the
// description's hidden, heads, output_heads and dropout.
inline std::shared_ptr<Sequential> two_attention_layers(const ModelDescription& d, Generator& generator,
                                                        const AttentionLayerMaker& layer) {
  const int64_t hidden = d.integer("hidden");
  const int64_t heads = d.integer("heads");
  const float dropout = d.number("dropout");
  auto sequence = std::make_shared<Sequential>();
  sequence->append(std::make_shared<Dropout>(dropout, generator));
  sequence->append(layer(d.in_features, hidden, heads, true));
  sequence->append(std::make_shared<Elu>());
  sequence->append(std::make_shared<Dropout>(dropout, generator));
  sequence->append(layer(hidden * heads, d.classes, d.integer("output_heads"), false));
  return sequence;
}

// What one attention layer costs, for two_attention_layers_memory: its
// parameter count and the bytes its forward saves for backward, given its
// input width, heads and features per head (and whether the heads are
// concatenated), and the bytes of one (entry, head) element of its
// backward's per-entry gradients.
struct AttentionLayerCost {
  std::function<int64_t(int64_t in_features, int64_t heads, int64_t per_head, bool concat)> parameters;
  std::function<int64_t(int64_t in_features, int64_t heads, int64_t per_head)> saved_bytes;
  int64_t entry_gradient_bytes = 4;
};

// The estimate of two_attention_layers (ModelEntry::memory): both layers'
// parameters and saved bytes, the ELU's output, the loss's two [nodes,
// classes] tensors, and the larger pair of gradients alive at once: per
// entry and head, or per node and feature.
inline ModelMemory two_attention_layers_memory(const ModelDescription& d, const GraphSize& graph,
                                               const AttentionLayerCost& layer) {
  const int64_t hidden = d.integer("hidden");
  const int64_t heads = d.integer("heads");
  const int64_t output_heads = d.integer("output_heads");
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  const int64_t hidden_width = hidden * heads;
  ModelMemory m;
  m.parameters = layer.parameters(d.in_features, heads, hidden, true) +
                 layer.parameters(hidden_width, output_heads, d.classes, false);
  const int64_t saved = layer.saved_bytes(d.in_features, heads, hidden) + graph.nodes * hidden_width * bytes  // ELU
                        + layer.saved_bytes(hidden_width, output_heads, d.classes) +
                        2 * graph.nodes * d.classes * bytes;  // the loss
  const int64_t gradients = 2 * std::max(graph.nnz * std::max(heads, output_heads) * layer.entry_gradient_bytes,
                                         graph.nodes * std::max(hidden_width, d.classes) * bytes);
  m.activation_bytes = saved + gradients;
  return m;
}

// hidden (8 per head), heads (8), output_heads (1, or the given per-dataset
// defaults) and dropout (0.6, on features and attention).
inline std::vector<Hyperparameter> attention_hyperparameters(
    std::map<std::string, std::string> output_heads_defaults = {}) {
  using Type = HyperparameterType;
  return {
      {.name = "hidden", .type = Type::Integer, .default_value = "8", .help = "hidden features per head",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "heads", .type = Type::Integer, .default_value = "8", .help = "attention heads of the hidden layer",
       .range = ValueRange::between(1, 1024)},
      {.name = "output_heads", .type = Type::Integer, .default_value = "1",
       .help = "attention heads of the output layer, averaged", .range = ValueRange::between(1, 1024),
       .dataset_defaults = std::move(output_heads_defaults)},
      {.name = "dropout", .type = Type::Number, .default_value = "0.6",
       .help = "dropout probability on features and attention", .role = HyperparameterRole::Regularization,
       .range = ValueRange::probability()},
  };
}

}  // namespace sgnn::training
