// What the built-in attention models (gat, gatv2, transformer) share: the
// architecture of Veličković et al. 2018 and its four hyperparameters. The
// models differ in the layer and in the graph form it attends over
// (gat_model.cpp, gatv2_model.cpp, transformer_model.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "training/nn/basic_layers.hpp"
#include "training/nn/hyperparameters.hpp"
#include "training/nn/model_registry.hpp"

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
