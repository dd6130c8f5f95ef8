// ModelDescription: what rebuilds a trained model from its parameters alone —
// the kind (a registered model: training/nn/model_registry.hpp), its input
// and output widths, the kind's hyperparameters, the transform its input
// features went through and the precision it computes in. make_model records
// it in the Model, a checkpoint stores it (training/checkpoint.hpp),
// make_model rebuilds from it.
//
// Text form (checkpoint metadata, one key per field, all strings):
//   model                         the kind, e.g. "gcn"
//   model.in_features             input feature width, e.g. "1433"
//   model.classes                 output width (logits), e.g. "7"
//   model.edge_features           edge feature width, only for a kind that
//                                 reads edge features (gine), e.g. "8"
//   model.hyperparameter.<name>   each Architecture and Regularization
//                                 hyperparameter of the kind, e.g.
//                                 model.hyperparameter.hidden = "16"
//   features.transform            "row-normalize" | "none"
//   precision                     "fp32" | "bf16"
// Checkpoints written before the registry described gcn and gat per layer
// instead (model.widths "16,7", model.heads "1,1", model.activation,
// model.normalization, model.dropout, model.projected_dropout); they are
// read into a LayerListDescription and converted by the kind's entry
// (ModelEntry::from_layer_list).
// description_from_metadata throws IoError(source, 0, reason) for a missing
// or malformed key; it does not judge whether this build can make the model
// (make_model does).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

struct ModelDescription {
  // Every member has an initializer: {.kind = "gcn", .in_features = 1433, .classes = 7}.
  std::string kind{};       // a registered model; empty: a model built by hand, not described
  int64_t in_features = 0;  // input feature width
  int64_t classes = 0;      // output width (logits)
  // Edge feature width (GraphInput::edge_features) for a kind that reads
  // them (its ModelEntry::graph.edge_features); 0 for every other kind.
  int64_t edge_features = 0;
  // The kind's Architecture and Regularization hyperparameters by name, in
  // stored form (training/nn/hyperparameters.hpp): {"hidden": "16", "dropout": "0.5"}.
  std::map<std::string, std::string> hyperparameters{};
  graph_io::FeatureTransform feature_transform = graph_io::FeatureTransform::RowNormalize;
  Precision precision = Precision::Fp32;

  bool described() const { return !kind.empty(); }
  // Typed reading of hyperparameters; InvalidArgument naming the kind and
  // the name when it is missing or of another type.
  int64_t integer(const std::string& name) const;
  float number(const std::string& name) const;
  bool enabled(const std::string& name) const;  // a switch: "on"
  const std::string& text(const std::string& name) const;
};

// The description of a checkpoint written before the registry: per graph
// layer its output width per head and its heads (the last width is the
// class count), the activation between layers, the adjacency's
// normalisation and the dropout settings, as that format stored them.
struct LayerListDescription {
  std::vector<int64_t> widths;
  std::vector<int64_t> heads;
  std::string activation;     // "relu", "elu"
  std::string normalization;  // "symmetric", "row", "none"
  float dropout = 0.0f;
  bool projected_dropout = false;
};

// One line for people: "gcn 1433 -> 16 -> 7 (relu), symmetric adjacency,
// row-normalize features, fp32" (the layers as the kind's entry writes them).
std::string description_summary(const ModelDescription& description);

std::map<std::string, std::string> description_metadata(const ModelDescription& description);
ModelDescription description_from_metadata(const std::map<std::string, std::string>& metadata,
                                           const std::string& source);

// The first difference that makes models of the two descriptions
// incompatible (kind, widths, edge feature width, an Architecture hyperparameter, the feature
// transform or precision; Regularization ones such as dropout are not one),
// as "the checkpoint's model ..., this one ..." text; empty when there is none.
std::string description_difference(const ModelDescription& checkpoint, const ModelDescription& model);

// How the model's graph is prepared: its kind's ModelEntry::graph.
graph_io::GraphOptions description_graph_options(const ModelDescription& description);

}  // namespace sgnn::training
