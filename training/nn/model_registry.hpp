// The model registry: every model kind a program can train, list, rebuild
// from a checkpoint and estimate the memory of, each described once by a
// ModelEntry — its name, hyperparameters (flags, defaults, per-dataset
// overrides), graph preparation, builder, weight decay and memory estimate.
//
// The built-in kinds (gcn, gat, sgc, appnp, sage, gin, gatv2, transformer;
// training/nn/builtin_models.hpp) are registered before the first lookup. A
// program adds its own with one call, register_model(entry), or a
// ModelRegistration object at namespace scope (which also registers a kind
// from a plugin library when it is loaded: sgnn_predict --plugin). Its
// checkpoints then load, predict and embed like the built-in ones. Guide:
// docs/extending.md.
//
// Thread-safe; entries live until the process ends (references stay valid).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/generator.hpp"
#include "graph_io/graph.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/hyperparameters.hpp"
#include "training/nn/model_description.hpp"

namespace sgnn::training {

// What a model's training step keeps on the device besides the graph: its
// parameter count (each costs 5 float32: the value, its gradient, Adam's two
// moments and the trainer's best copy, plus a bfloat16 compute copy in bf16)
// and the bytes of the activations one forward and backward keep alive.
struct ModelMemory {
  int64_t parameters = 0;
  int64_t activation_bytes = 0;
};

// The graph a memory estimate is for: nodes and entries of the prepared adjacency.
struct GraphSize {
  int64_t nodes = 0;
  int64_t nnz = 0;
};

struct ModelEntry {
  // Every member has an initializer, so that an entry names only what it sets:
  // register_model({.name = "mlp", .about = "...", .hyperparameters = {...}, .build = build_mlp}).

  // Lowercase letters, digits, '_' and '-': "gcn". --model gcn, the checkpoint's "model".
  std::string name{};
  std::string about{};  // one line for --list-models: "GCN (Kipf & Welling 2017): ..."
  // The model's hyperparameters, and any of the common training ones
  // (training_hyperparameters(): epochs, lr, weight_decay, patience,
  // monitor) whose default or help it changes, listed under that name.
  std::vector<Hyperparameter> hyperparameters{};
  // How its graph is prepared (symmetrised, self loops, normalisation ...).
  // graph.edge_features: the model reads the edge features
  // (GraphInput::edge_features); its description records their width and
  // a dataset without them is refused.
  graph_io::GraphOptions graph = graph_io::gcn_graph_options();
  // How its input features are transformed unless a run says otherwise
  // (--row-normalize, --no-row-normalize): each row scaled to sum 1, or as stored.
  graph_io::FeatureTransform feature_transform = graph_io::FeatureTransform::RowNormalize;
  // true: the model aggregates only through GraphInput::aggregate, the
  // prepared adjacency's fixed weights, which the HRPB kernel may serve
  // (--spmm hrpb|auto); false (learned per-edge weights: attention): CSR.
  bool fixed_weights = true;
  // Parameters (names as in Model::named_parameters, "layers.1.weight")
  // with weight decay: those starting with one of these; empty: all.
  std::vector<std::string> decayed_parameters{};
  // Required. The layers of a model of this kind; `description` holds every
  // Architecture and Regularization hyperparameter of the kind (make_model
  // fills the defaults), read by description.integer("hidden") etc.
  // Parameters and dropout masks draw from `generator`.
  std::function<std::shared_ptr<Sequential>(const ModelDescription& description, Generator& generator)> build{};
  // Optional: the training step's device memory (the experiment refuses a
  // run that cannot fit before allocating; without it only the graph is
  // counted). Bytes per activation element: activation_dtype(description.precision).
  std::function<ModelMemory(const ModelDescription& description, const GraphSize& graph)> memory{};
  // Optional: the layers in one line for description_summary, e.g.
  // "1433 -> 16 -> 7 (relu), symmetric adjacency"; default: in -> classes
  // and the Architecture hyperparameters.
  std::function<std::string(const ModelDescription& description)> layers_text{};
  // Optional: the feature width the model aggregates at, for choosing the
  // SpMM kernel (default: the class count).
  std::function<int64_t(const ModelDescription& description)> aggregation_width{};
  // Optional: the hyperparameters of a checkpoint written before the
  // registry (per-layer widths and heads; gcn and gat only).
  std::function<std::map<std::string, std::string>(const LayerListDescription& layers)> from_layer_list{};
};

// Adds `entry`. InvalidArgument naming the entry and the reason: a name
// already registered or not of the allowed characters, no build function, a
// hyperparameter named twice, with a bad name, default or dataset default,
// or a common training one given another type or role.
void register_model(ModelEntry entry);

// Registers at construction: `static const ModelRegistration mine{entry};`.
// Runs before main (or while a plugin loads), where an exception would end
// the program: a refused entry is recorded instead (registration_failures),
// and the lookup of its name reports why.
struct ModelRegistration {
  explicit ModelRegistration(ModelEntry entry) noexcept;
};

// The messages of the ModelRegistrations refused so far, in order.
std::vector<std::string> registration_failures();

// InvalidArgument "unknown model "x" (registered: gcn, gat, ...)", with the
// reason when a registration of that name was refused.
const ModelEntry& model_entry(const std::string& name);
const ModelEntry* find_model_entry(const std::string& name);  // nullptr when unknown
std::vector<std::string> model_names();  // in registration order: the built-ins first

// The hyperparameters every kind trains with: epochs 200, lr 0.01,
// weight_decay 5e-4, patience 0, monitor accuracy (Kipf & Welling's
// settings), all of role Optimization. A registered entry's list holds
// them too, after its own.
const std::vector<Hyperparameter>& training_hyperparameters();
// The common training hyperparameter `name` with another default for a
// model (and per-dataset ones, and another help line when given), for an
// entry's list: training_default("lr", "0.005", {{"pubmed", "0.01"}}).
// InvalidArgument for a name that is not a common one.
Hyperparameter training_default(const std::string& name, std::string default_value,
                                std::map<std::string, std::string> dataset_defaults = {}, std::string help = "");

// Every hyperparameter of `entry` in its stored form: those `given` (by
// name), the others the entry's default for `dataset` (a name or path;
// empty: the general defaults). InvalidArgument naming the model and
// the hyperparameter for an unknown name or a bad value.
std::map<std::string, std::string> resolve_hyperparameters(const ModelEntry& entry, const std::string& dataset,
                                                           const std::map<std::string, std::string>& given = {});

// The description of a model of `entry` with `hyperparameters` (resolved;
// Optimization-role ones are left out). `edge_features`: the dataset's edge
// feature width (0: none), recorded for a kind that reads them.
ModelDescription describe_model(const ModelEntry& entry, int64_t in_features, int64_t classes,
                                const std::map<std::string, std::string>& hyperparameters,
                                graph_io::FeatureTransform feature_transform, Precision precision,
                                int64_t edge_features = 0);

// `description` with every Architecture and Regularization hyperparameter of
// its kind, checked and in stored form (a missing one takes its general
// default, so a kind may gain hyperparameters without breaking its
// checkpoints). InvalidArgument for an unknown kind, sizes <= 0, an edge
// feature width of 0 for a kind that reads them (or > 0 for one that does
// not), an unknown or Optimization-role name, or a bad value.
ModelDescription complete_description(const ModelDescription& description);

// The parameter count and activations of `description`'s model on `graph`
// (its entry's memory estimate; nullopt when the entry has none).
std::optional<ModelMemory> model_memory(const ModelDescription& description, const GraphSize& graph);

// The feature width the model aggregates at (its entry's aggregation_width;
// default the class count).
int64_t aggregation_width(const ModelDescription& description);

}  // namespace sgnn::training
