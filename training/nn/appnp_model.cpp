// appnp: Klicpera et al. 2019. Predict with a two-layer perceptron, then
// propagate: dropout → Linear(in, hidden) → ReLU → dropout →
// Linear(hidden, classes) → K steps of personalised PageRank over the
// symmetric-normalised adjacency with self loops (APPNPPropagation). PyG's
// benchmark/citation/appnp.py settings: hidden 64, K = 10, alpha 0.1,
// dropout 0.5, lr 0.01, weight decay 5e-4 on every parameter, 200 epochs,
// the test accuracy at the lowest validation loss.
#include <algorithm>

#include "training/nn/appnp_propagation.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const int64_t hidden = d.integer("hidden");
  const float dropout = d.number("dropout");
  auto sequence = std::make_shared<Sequential>();
  sequence->append(std::make_shared<Dropout>(dropout, generator));
  sequence->append(std::make_shared<Linear>(d.in_features, hidden, generator));
  sequence->append(std::make_shared<Relu>());
  sequence->append(std::make_shared<Dropout>(dropout, generator));
  sequence->append(std::make_shared<Linear>(hidden, d.classes, generator));
  sequence->append(std::make_shared<APPNPPropagation>(d.integer("hops"), d.number("alpha")));
  return sequence;
}

// Activations: the dropout outputs the two matmuls save, the ReLU output,
// the predictions z and the propagation's last step, the loss's
// probabilities and the logits' gradient, and two gradients of the widest
// layer live at once during backward (the propagation's steps save nothing).
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t hidden = d.integer("hidden");
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  const int64_t saved = graph.nodes * d.in_features + 2 * graph.nodes * hidden + 4 * graph.nodes * d.classes;
  const int64_t gradients = 2 * graph.nodes * std::max(hidden, d.classes);
  return {.parameters = d.in_features * hidden + hidden + hidden * d.classes + d.classes,
          .activation_bytes = (saved + gradients) * bytes};
}

std::string layers_text(const ModelDescription& d) {
  return detail::concat(d.in_features, " -> ", d.integer("hidden"), " -> ", d.classes, " (relu), then ",
                        d.integer("hops"), " steps of personalised PageRank (alpha ", d.text("alpha"),
                        ") over the symmetric adjacency");
}

}  // namespace

ModelEntry appnp_model() {
  using Type = HyperparameterType;
  using Role = HyperparameterRole;
  ModelEntry entry;
  entry.name = "appnp";
  entry.about = "APPNP (Klicpera et al. 2019): a two-layer perceptron's predictions propagated by K steps of "
                "personalised PageRank over the symmetric-normalised adjacency";
  entry.hyperparameters = {
      {.name = "hidden", .type = Type::Integer, .default_value = "64", .help = "hidden features of the perceptron",
       .range = ValueRange::between(1, 1 << 20)},
      {.name = "hops", .type = Type::Integer, .default_value = "10", .help = "propagation steps K",
       .range = ValueRange::between(1, 1000)},
      {.name = "alpha", .type = Type::Number, .default_value = "0.1",
       .help = "teleport probability: the share of the predictions restored each step",
       .range = ValueRange::unit_interval()},
      {.name = "dropout", .type = Type::Number, .default_value = "0.5",
       .help = "dropout probability before each Linear", .role = Role::Regularization,
       .range = ValueRange::probability()},
      training_default("monitor", "loss"),
  };
  entry.graph = graph_io::gcn_graph_options();
  entry.graph.prepare.symmetric_scale = true;  // D^-1/2 per node: the SpMM multiplies it in
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.classes; };
  return entry;
}

}  // namespace sgnn::training
