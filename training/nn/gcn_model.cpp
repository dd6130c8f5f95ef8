// gcn: Kipf & Welling 2017. dropout → GCNConv(in, hidden) → ReLU → ... →
// dropout → GCNConv(hidden, classes) over D^-1/2 (A+I) D^-1/2 (kept as one
// scale per node: the SpMM multiplies it in). Weight decay on the first
// layer only, as in the paper.
#include <algorithm>

#include "training/nn/builtin_models.hpp"
#include "training/nn/gcn_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const int64_t hidden = d.integer("hidden");
  const int64_t layers = d.integer("layers");
  const float dropout = d.number("dropout");
  auto sequence = std::make_shared<Sequential>();
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < layers; ++layer) {
    const bool last = layer + 1 == layers;
    const int64_t out = last ? d.classes : hidden;
    sequence->append(std::make_shared<Dropout>(dropout, generator));
    sequence->append(std::make_shared<GCNConv>(width, out, generator));
    if (!last) sequence->append(std::make_shared<Relu>());
    width = out;
  }
  return sequence;
}

// Activations: per layer the dropout output its matmul saves and the ReLU
// output, the loss's probabilities and the logits' gradient, and two
// gradients of the widest layer live at once during backward.
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t hidden = d.integer("hidden");
  const int64_t layers = d.integer("layers");
  ModelMemory m;
  int64_t saved = 0;
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < layers; ++layer) {
    const bool last = layer + 1 == layers;
    const int64_t out = last ? d.classes : hidden;
    m.parameters += width * out + out;
    saved += graph.nodes * width;
    if (!last) saved += graph.nodes * out;
    width = out;
  }
  saved += 2 * graph.nodes * d.classes;
  const int64_t gradients = 2 * graph.nodes * std::max(hidden, d.classes);
  m.activation_bytes = (saved + gradients) * static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  return m;
}

std::string layers_text(const ModelDescription& d) {
  std::string text = std::to_string(d.in_features);
  for (int64_t layer = 1; layer < d.integer("layers"); ++layer) text += " -> " + std::to_string(d.integer("hidden"));
  return text + " -> " + std::to_string(d.classes) + " (relu), symmetric adjacency";
}

// Checkpoints written before the registry: one width per layer, all hidden ones equal.
std::map<std::string, std::string> from_layer_list(const LayerListDescription& l) {
  for (std::size_t i = 0; i < l.widths.size(); ++i) {
    SGNN_CHECK(l.heads[i] == 1, "a GCN layer has one head, layer ", i + 1, " has ", l.heads[i]);
    SGNN_CHECK(i + 1 == l.widths.size() || l.widths[i] == l.widths.front(), "a GCN's hidden layers have one width");
  }
  SGNN_CHECK(l.activation == "relu", "a GCN uses relu, not ", l.activation);
  SGNN_CHECK(l.normalization == "symmetric", "a GCN aggregates over the symmetric-normalised adjacency");
  SGNN_CHECK(!l.projected_dropout, "projected dropout is a GAT option");
  std::map<std::string, std::string> hyperparameters{{"layers", std::to_string(l.widths.size())},
                                                     {"dropout", number_text(l.dropout)}};
  if (l.widths.size() > 1) hyperparameters["hidden"] = std::to_string(l.widths.front());
  return hyperparameters;
}

}  // namespace

ModelEntry gcn_model() {
  ModelEntry entry;
  entry.name = "gcn";
  entry.about = "GCN (Kipf & Welling 2017): dropout, GCNConv and ReLU per layer over the symmetric-normalised "
                "adjacency with self loops";
  entry.hyperparameters = {
      {.name = "hidden", .type = HyperparameterType::Integer, .default_value = "16", .help = "hidden features",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "layers", .type = HyperparameterType::Integer, .default_value = "2",
       .help = "GCNConv layers, the hidden ones all of width --hidden", .range = ValueRange::between(1, 64)},
      {.name = "dropout", .type = HyperparameterType::Number, .default_value = "0.5",
       .help = "dropout probability before each GCNConv", .role = HyperparameterRole::Regularization,
       .range = ValueRange::probability()},
      training_default("weight_decay", "5e-4", {}, "L2 weight decay, first layer only"),
  };
  entry.graph = graph_io::gcn_graph_options();
  entry.graph.prepare.symmetric_scale = true;  // D^-1/2 per node, not nnz weights: the SpMM multiplies it in
  entry.decayed_parameters = {"layers.1."};   // the first GCNConv (layers.0 is its dropout)
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden"); };
  entry.from_layer_list = from_layer_list;
  return entry;
}

}  // namespace sgnn::training
