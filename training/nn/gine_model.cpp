// gine: GIN with edge features (Hu et al. 2020), as PyG's GIN examples
// build GIN: per layer GINEConv with the MLP Linear(in, hidden) →
// BatchNorm1d → ReLU → Linear(hidden, hidden) and a learnable ε, then ReLU;
// then the head Linear(hidden, hidden) → ReLU → dropout → Linear(hidden,
// classes) (PyG's MLP([hidden, hidden, classes], norm=None, dropout=0.5)):
// the gin model's layers and settings (hidden 64, 2 layers, lr 0.01, weight
// decay 5e-4 on every parameter, 200 epochs) with the edge features added,
// the features as stored. The graph: the edges symmetrised (each listed edge's
// features read in both directions), no self loops added (the (1 + ε) x_i
// term is the node's own), the edge features in the entries' order
// (graph_io::GraphOptions::edge_features; the rule in graph_io/prepare.hpp).
#include <algorithm>

#include "training/nn/builtin_models.hpp"
#include "training/nn/gine_conv.hpp"
#include "training/nn/linear.hpp"
#include "training/nn/normalization_layers.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const int64_t hidden = d.integer("hidden");
  auto sequence = std::make_shared<Sequential>();
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < d.integer("layers"); ++layer) {
    auto mlp = std::make_shared<Sequential>();
    mlp->append(std::make_shared<Linear>(width, hidden, generator));
    mlp->append(std::make_shared<BatchNorm1d>(hidden));
    mlp->append(std::make_shared<Relu>());
    mlp->append(std::make_shared<Linear>(hidden, hidden, generator));
    sequence->append(std::make_shared<GINEConv>(mlp, width, d.edge_features, generator,
                                                GINEOptions{.train_eps = d.enabled("train_eps")}));
    sequence->append(std::make_shared<Relu>());
    width = hidden;
  }
  sequence->append(std::make_shared<Linear>(hidden, hidden, generator));
  sequence->append(std::make_shared<Relu>());
  sequence->append(std::make_shared<Dropout>(d.number("dropout"), generator));
  sequence->append(std::make_shared<Linear>(hidden, d.classes, generator));
  return sequence;
}

// Per layer: the input (saved by (1 + ε) · x), the messages' ReLU [nnz,
// width] (saved for backward), the MLP's input and its three [N, hidden]
// outputs (Linear, BatchNorm's input and ReLU, the outer ReLU); the head's
// three [N, hidden] and the loss's two [N, classes]; beside them at the
// peak two more [nnz, width] (the sum before its ReLU, or backward's
// message gradients).
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t hidden = d.integer("hidden");
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  ModelMemory m;
  int64_t saved = 0;
  int64_t widest_messages = 0;
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < d.integer("layers"); ++layer) {
    m.parameters += width * hidden + hidden + 2 * hidden + hidden * hidden + hidden;  // the MLP with BatchNorm
    if (d.enabled("train_eps")) m.parameters += 1;
    if (d.edge_features != width) m.parameters += d.edge_features * width + width;  // W_e
    saved += 2 * graph.nodes * width + graph.nnz * width + 4 * graph.nodes * hidden;
    widest_messages = std::max(widest_messages, graph.nnz * width);
    width = hidden;
  }
  m.parameters += hidden * hidden + hidden + hidden * d.classes + d.classes;
  saved += 3 * graph.nodes * hidden + 2 * graph.nodes * d.classes;
  m.activation_bytes = (saved + 2 * widest_messages) * bytes;
  return m;
}

std::string layers_text(const ModelDescription& d) {
  std::string text = std::to_string(d.in_features);
  for (int64_t layer = 0; layer < d.integer("layers"); ++layer) text += " -> " + std::to_string(d.integer("hidden"));
  return text + " -> " + std::to_string(d.classes) + " (GINEConv, MLP with BatchNorm, " +
         (d.enabled("train_eps") ? "learned" : "fixed") + " eps; " +
         std::to_string(d.edge_features) + " edge features), head MLP";
}

}  // namespace

ModelEntry gine_model() {
  ModelEntry entry;
  entry.name = "gine";
  entry.about = "GINE (Hu et al. 2020): GIN with edge features, (1 + eps) x_i + sum_j ReLU(x_j + W e_ji) through an "
                "MLP with BatchNorm per layer; reads OGB's edge-feat.csv";
  entry.hyperparameters = {
      {.name = "hidden", .type = HyperparameterType::Integer, .default_value = "64", .help = "hidden features",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "layers", .type = HyperparameterType::Integer, .default_value = "2", .help = "GINEConv layers",
       .range = ValueRange::between(1, 64)},
      {.name = "train_eps", .type = HyperparameterType::Switch, .default_value = "on",
       .help = "learn each layer's eps (off: eps = 0, fixed)"},
      {.name = "dropout", .type = HyperparameterType::Number, .default_value = "0.5",
       .help = "dropout probability in the head MLP", .role = HyperparameterRole::Regularization,
       .range = ValueRange::probability()},
  };
  entry.graph.prepare.symmetrize = true;
  entry.graph.prepare.self_loops = graph_io::SelfLoops::Keep;
  entry.graph.prepare.normalization = graph_io::Normalization::None;
  entry.graph.prepare.edge_map = true;  // the messages' gradient moves into Aᵀ's order
  entry.graph.edge_features = true;
  entry.feature_transform = graph_io::FeatureTransform::None;
  entry.fixed_weights = false;  // no fixed-weight SpMM: the messages are summed by a segment reduction
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden"); };
  return entry;
}

}  // namespace sgnn::training
