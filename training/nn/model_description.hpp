// ModelDescription: what rebuilds a trained model from its parameters alone —
// the architecture (kind, layer widths, heads, activation), the adjacency it
// aggregates over, the transform its input features went through, and the
// precision it computes in. make_gcn / make_gat record it in the Model, a
// checkpoint stores it (training/checkpoint.hpp), make_model rebuilds from it.
//
// Text form (checkpoint metadata, one key per field, all strings):
//   model                    "gcn" | "gat"
//   model.in_features        input feature width, e.g. "1433"
//   model.classes            output width (logits), e.g. "7"
//   model.widths             output features per head of each graph layer, e.g. "16,7"
//   model.heads              heads of each graph layer, e.g. "8,1" (GCN: "1,1")
//   model.activation         between graph layers: "relu" | "elu"
//   model.normalization      adjacency values: "symmetric" | "row" | "none"
//   model.dropout            training dropout, shortest round-trip decimal, e.g. "0.5"
//   model.projected_dropout  "true" | "false" (GAT: dropout on W·x too)
//   features.transform       "row-normalize" | "none"
//   precision                "fp32" | "bf16"
// description_from_metadata throws IoError(source, 0, reason) for a missing
// or malformed key; it does not judge whether this build can make the model
// (make_model does).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

struct ModelDescription {
  std::string kind;             // "gcn" | "gat"; empty: a model built by hand, not described
  int64_t in_features = 0;      // input feature width
  int64_t classes = 0;          // output width (logits)
  std::vector<int64_t> widths;  // per graph layer: output features per head; the last equals `classes`
  std::vector<int64_t> heads;   // per graph layer: heads (GCN: 1); hidden layers concatenate, the last averages
  std::string activation;       // between graph layers: "relu" (GCN), "elu" (GAT)
  graph_io::Normalization normalization = graph_io::Normalization::None;  // Symmetric (GCN), None (GAT)
  graph_io::FeatureTransform feature_transform = graph_io::FeatureTransform::RowNormalize;
  Precision precision = Precision::Fp32;
  float dropout = 0.0f;           // training only (evaluation runs without); kept to rebuild the model as trained
  bool projected_dropout = false;  // GAT: dropout on W·x before aggregation too

  bool described() const { return !kind.empty(); }
};

// One line for people: "gcn 1433 -> 16 -> 7 (relu), symmetric adjacency,
// row-normalize features, fp32".
std::string description_summary(const ModelDescription& description);

std::map<std::string, std::string> description_metadata(const ModelDescription& description);
ModelDescription description_from_metadata(const std::map<std::string, std::string>& metadata,
                                           const std::string& source);

// The first difference that makes models of the two descriptions
// incompatible (parameters, inputs or precision; dropout is not one), as
// "the checkpoint's model ..., this one ..." text; empty when there is none.
std::string description_difference(const ModelDescription& checkpoint, const ModelDescription& model);

// How the model's graph is prepared: symmetrised, a self loop on every node,
// the description's normalisation (graph_io::gcn_graph_options() for GCN,
// gat_graph_options() for GAT).
graph_io::GraphOptions description_graph_options(const ModelDescription& description);

}  // namespace sgnn::training
