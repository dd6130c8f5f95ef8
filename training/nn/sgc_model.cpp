// sgc: Wu et al. 2019. One SGConv(in, classes, K): the K-hop propagation of
// the features over the symmetric-normalised adjacency with self loops,
// computed once, then a linear classifier. PyG's examples/sgc.py settings:
// K = 2, 100 epochs, lr 0.2, weight decay 5e-3 on every parameter, no
// dropout, the features as stored (row-normalised, Cora's test accuracy
// falls by about 4 points at these settings).
#include "training/nn/builtin_models.hpp"
#include "training/nn/sg_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  auto sequence = std::make_shared<Sequential>();
  sequence->append(std::make_shared<SGConv>(d.in_features, d.classes, d.integer("hops"), generator));
  return sequence;
}

// Activations: the kept propagation [N, in] and, while it is computed, the
// previous hop beside it (later the training rows' copy, SGConv::forward_rows,
// in its place); the logits, the loss's probabilities and two gradients of
// [N, classes].
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  return {.parameters = d.in_features * d.classes + d.classes,
          .activation_bytes = (2 * graph.nodes * d.in_features + 4 * graph.nodes * d.classes) * bytes};
}

std::string layers_text(const ModelDescription& d) {
  return detail::concat(d.in_features, " -> ", d.classes, " (", d.integer("hops"), " hops), symmetric adjacency");
}

}  // namespace

ModelEntry sgc_model() {
  ModelEntry entry;
  entry.name = "sgc";
  entry.about = "SGC (Wu et al. 2019): the features propagated K hops over the symmetric-normalised adjacency once, "
                "then a linear classifier";
  entry.hyperparameters = {
      {.name = "hops", .type = HyperparameterType::Integer, .default_value = "2", .help = "propagation steps K",
       .range = ValueRange::between(1, 64)},
      training_default("epochs", "100"),
      training_default("lr", "0.2"),
      training_default("weight_decay", "5e-3"),
  };
  entry.graph = graph_io::gcn_graph_options();
  entry.graph.prepare.symmetric_scale = true;  // D^-1/2 per node: the SpMM multiplies it in
  entry.feature_transform = graph_io::FeatureTransform::None;
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.in_features; };
  return entry;
}

}  // namespace sgnn::training
