// gin: GIN (Xu et al. 2019) for node classification, as PyG's
// examples/gin.py builds it: `layers` GINConv layers, each with the MLP
// Linear(in, hidden) → BatchNorm1d → ReLU → Linear(hidden, hidden) (PyG's
// MLP([in, hidden, hidden])) and a learned ε (train_eps), a ReLU after
// each, then the classifier Linear(hidden, hidden) → ReLU → dropout →
// Linear(hidden, classes) (PyG's MLP([hidden, hidden, classes], norm=None,
// dropout=0.5)); sum aggregation over the symmetrised pattern without self
// loops. Hidden 64 and 2 GINConv layers (a node's 2-hop neighbourhood, as
// GCN's on the citation graphs); lr 0.01, weight decay 5e-4 on every
// parameter, 200 epochs.
#include <algorithm>

#include "training/nn/builtin_models.hpp"
#include "training/nn/gin_conv.hpp"
#include "training/nn/linear.hpp"
#include "training/nn/normalization_layers.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const int64_t hidden = d.integer("hidden");
  const float dropout = d.number("dropout");
  auto sequence = std::make_shared<Sequential>();
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < d.integer("layers"); ++layer) {
    auto mlp = std::make_shared<Sequential>();
    mlp->append(std::make_shared<Linear>(width, hidden, generator));
    mlp->append(std::make_shared<BatchNorm1d>(hidden));
    mlp->append(std::make_shared<Relu>());
    mlp->append(std::make_shared<Linear>(hidden, hidden, generator));
    sequence->append(std::make_shared<GINConv>(width, mlp, d.enabled("train_eps")));
    sequence->append(std::make_shared<Relu>());
    width = hidden;
  }
  sequence->append(std::make_shared<Linear>(hidden, hidden, generator));
  sequence->append(std::make_shared<Relu>());
  sequence->append(std::make_shared<Dropout>(dropout, generator));
  sequence->append(std::make_shared<Linear>(hidden, d.classes, generator));
  return sequence;
}

// Activations per GINConv: where the input is wider than hidden, x·W
// comes before the sum (gin_conv.hpp), so of width hidden x·W (saved by
// the ε product), the sum of the two, the biased sum (saved by the batch
// norm) and the ReLUs' outputs; else (1 + ε)·x plus the sum of the input's
// width (saved by the first Linear) and three of width hidden. Then the
// classifier's hidden activations, the loss's probabilities and the
// logits' gradient; two gradients of the widest projected layer live at
// once during backward.
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t hidden = d.integer("hidden");
  const int64_t layers = d.integer("layers");
  ModelMemory m;
  int64_t saved = 0;
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < layers; ++layer) {
    const int64_t eps = d.enabled("train_eps") ? 1 : 0;
    m.parameters += width * hidden + hidden + 2 * hidden + hidden * hidden + hidden + eps;
    saved += graph.nodes * (width > hidden ? 5 * hidden : width + 3 * hidden);
    width = hidden;
  }
  m.parameters += hidden * hidden + hidden + hidden * d.classes + d.classes;
  saved += graph.nodes * (3 * hidden + 2 * d.classes);
  const int64_t gradients = 2 * graph.nodes * std::max(hidden, d.classes);
  m.activation_bytes = (saved + gradients) * static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  return m;
}

std::string layers_text(const ModelDescription& d) {
  std::string text = std::to_string(d.in_features);
  for (int64_t layer = 0; layer < d.integer("layers"); ++layer) text += " -> " + std::to_string(d.integer("hidden"));
  return detail::concat(text, " -> ", d.integer("hidden"), " -> ", d.classes,
                        " (GINConv MLPs with batch norm, relu), sum aggregation, no self loops");
}

}  // namespace

ModelEntry gin_model() {
  using Type = HyperparameterType;
  using Role = HyperparameterRole;
  ModelEntry entry;
  entry.name = "gin";
  entry.about = "GIN (Xu et al. 2019): GINConv layers, an MLP with batch norm on (1 + eps) x_i plus the "
                "neighbours' sum, then a two-layer classifier";
  entry.hyperparameters = {
      {.name = "hidden", .type = Type::Integer, .default_value = "64", .help = "hidden features",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "layers", .type = Type::Integer, .default_value = "2", .help = "GINConv layers",
       .range = ValueRange::between(1, 64)},
      {.name = "train_eps", .type = Type::Switch, .default_value = "on",
       .help = "learn each GINConv's eps (off: eps = 0)"},
      {.name = "dropout", .type = Type::Number, .default_value = "0.5",
       .help = "dropout probability in the classifier", .role = Role::Regularization,
       .range = ValueRange::probability()},
  };
  entry.graph = graph_io::gat_graph_options();
  entry.graph.prepare.self_loops = graph_io::SelfLoops::Remove;  // the form GINConv asks for: nothing derived
  entry.fixed_weights = false;  // aggregates with ops::aggregate, not the prepared weights: CSR
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.in_features; };
  return entry;
}

}  // namespace sgnn::training
