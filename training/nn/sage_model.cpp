// sage: GraphSAGE (Hamilton et al. 2017) for full-graph node
// classification. dropout → SAGEConv(in, hidden) → ReLU → ... → dropout →
// SAGEConv(hidden, classes), with the mean or the max-pool aggregator and a
// root weight, over the symmetrised pattern without self loops. Settings of
// PyG's examples/graph_sage_unsup.py on Cora (hidden 64, 2 layers, dropout
// 0.5, lr 0.01) with the weight decay 5e-4 of the citation benchmarks, on
// every parameter, 200 epochs.
#include <algorithm>

#include "training/nn/builtin_models.hpp"
#include "training/nn/sage_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const int64_t hidden = d.integer("hidden");
  const int64_t layers = d.integer("layers");
  const float dropout = d.number("dropout");
  const SAGEOptions options{.aggregator = parse_sage_aggregator(d.text("aggregator"))};
  auto sequence = std::make_shared<Sequential>();
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < layers; ++layer) {
    const bool last = layer + 1 == layers;
    const int64_t out = last ? d.classes : hidden;
    sequence->append(std::make_shared<Dropout>(dropout, generator));
    sequence->append(std::make_shared<SAGEConv>(width, out, generator, options));
    if (!last) sequence->append(std::make_shared<Relu>());
    width = out;
  }
  return sequence;
}

// Activations per layer: the dropout output (saved by both products), the
// aggregation (saved by W_neighbours' product; max-pool: also the pooled
// features, saved by the ReLU and the maximum), the ReLU output; the loss's
// probabilities and the logits' gradient; two gradients of the widest
// layer live at once during backward.
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t hidden = d.integer("hidden");
  const int64_t layers = d.integer("layers");
  const bool max_pool = parse_sage_aggregator(d.text("aggregator")) == SAGEAggregator::MaxPool;
  ModelMemory m;
  int64_t saved = 0, widest = d.classes;
  int64_t width = d.in_features;
  for (int64_t layer = 0; layer < layers; ++layer) {
    const bool last = layer + 1 == layers;
    const int64_t out = last ? d.classes : hidden;
    m.parameters += 2 * width * out + out + (max_pool ? width * width + width : 0);
    const int64_t aggregated = max_pool ? 2 * width : out < width ? 0 : width;
    saved += graph.nodes * (width + aggregated + (last ? 0 : out));
    widest = std::max(widest, max_pool ? width : out);
    width = out;
  }
  saved += 2 * graph.nodes * d.classes;
  const int64_t gradients = 2 * graph.nodes * widest;
  m.activation_bytes = (saved + gradients) * static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  return m;
}

std::string layers_text(const ModelDescription& d) {
  std::string text = std::to_string(d.in_features);
  for (int64_t layer = 1; layer < d.integer("layers"); ++layer) text += " -> " + std::to_string(d.integer("hidden"));
  return text + " -> " + std::to_string(d.classes) + " (relu), " + d.text("aggregator") +
         " aggregator, no self loops";
}

}  // namespace

ModelEntry sage_model() {
  using Type = HyperparameterType;
  ModelEntry entry;
  entry.name = "sage";
  entry.about = "GraphSAGE (Hamilton et al. 2017): SAGEConv layers, the neighbours' mean or max-pool beside a "
                "root weight, ReLU between";
  entry.hyperparameters = {
      {.name = "hidden", .type = Type::Integer, .default_value = "64", .help = "hidden features",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "layers", .type = Type::Integer, .default_value = "2",
       .help = "SAGEConv layers, the hidden ones all of width --hidden", .range = ValueRange::between(1, 64)},
      {.name = "aggregator", .type = Type::Choice, .default_value = "mean",
       .help = "the neighbours' aggregation: mean, or max-pool (max of ReLU(W_pool x_j + b_pool))",
       .choices = {"mean", "max-pool"}},
      {.name = "dropout", .type = Type::Number, .default_value = "0.5",
       .help = "dropout probability before each SAGEConv", .role = HyperparameterRole::Regularization,
       .range = ValueRange::probability()},
  };
  entry.graph = graph_io::gat_graph_options();
  entry.graph.prepare.self_loops = graph_io::SelfLoops::Remove;  // the form SAGEConv asks for: nothing derived
  entry.fixed_weights = false;  // aggregates with ops::aggregate, not the prepared weights: CSR
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden"); };
  return entry;
}

}  // namespace sgnn::training
