// The skip-gcn model, defined and registered outside the library
// (docs/extending.md): dropout → SkipGCNConv(in, hidden) → ReLU → dropout →
// SkipGCNConv(hidden, classes). Compiled into train_skip_gcn and into the
// plugin libskip_gcn.so, whose loading registers it (sgnn_train --plugin,
// sgnn_predict --plugin).
#include "graph_io/graph.hpp"
#include "skip_conv.hpp"
#include "training/nn/model_registry.hpp"

namespace skip_gcn {

namespace {

using namespace sgnn;

// [extending:build]
// The layers of a skip-gcn of `description`: the input and output widths and
// every hyperparameter of the kind (the defaults filled in by make_model).
std::shared_ptr<training::Sequential> build(const training::ModelDescription& description, Generator& generator) {
  const int64_t hidden = description.integer("hidden");
  const float dropout = description.number("dropout");
  auto layers = std::make_shared<training::Sequential>();
  layers->append(std::make_shared<training::Dropout>(dropout, generator));
  layers->append(std::make_shared<SkipGCNConv>(description.in_features, hidden, generator));
  layers->append(std::make_shared<training::Relu>());
  layers->append(std::make_shared<training::Dropout>(dropout, generator));
  layers->append(std::make_shared<SkipGCNConv>(hidden, description.classes, generator));
  return layers;
}
// [extending:end]

// [extending:entry]
training::ModelEntry skip_gcn_entry() {
  using training::HyperparameterRole;
  using training::HyperparameterType;
  using training::ValueRange;
  return {.name = "skip-gcn",
          .about = "GCN with a root weight per layer: out = A·X·W + X·W_root + b (defined outside the library)",
          .hyperparameters = {{.name = "hidden",
                               .type = HyperparameterType::Integer,
                               .default_value = "16",
                               .help = "hidden features",
                               .range = ValueRange::between(1, 1 << 20)},
                              {.name = "dropout",
                               .type = HyperparameterType::Number,
                               .default_value = "0.5",
                               .help = "dropout probability before each layer",
                               .role = HyperparameterRole::Regularization,
                               .range = ValueRange::probability(),
                               .dataset_defaults = {{"citeseer", "0.6"}}},
                              // A common training setting with another default for this model.
                              training::training_default("epochs", "100")},
          .graph = graph_io::gcn_graph_options(),  // symmetrised, self loops, D^-1/2 (A+I) D^-1/2
          .build = build};
}
// [extending:end]

// [extending:register]
// Runs when the program starts, or when a program loads the plugin.
const training::ModelRegistration registration{skip_gcn_entry()};
// [extending:end]

}  // namespace

}  // namespace skip_gcn
