// The two models of the papers, built from the layers.
//
// GCN (Kipf & Welling 2017): dropout → GCNConv(in, hidden) → ReLU → dropout →
//   GCNConv(hidden, classes). Weight decay on the first layer only.
// GAT (Veličković et al. 2018): dropout → GATConv(in, hidden, heads, concat,
//   attention dropout) → ELU → dropout → GATConv(hidden·heads, classes,
//   output_heads, mean over heads). Weight decay on every parameter.
// Both return logits [N, classes] (the loss applies the softmax), of the
// model's activation dtype (bfloat16 in bf16 precision: the loss reads them
// as float and is float32), and both record their ModelDescription
// (training/nn/model_description.hpp), from which make_model builds the same
// architecture again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/generator.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/model_description.hpp"
#include "training/nn/parameter_group.hpp"

namespace sgnn::training {

class Model : public Module {
 public:
  // `decayed_prefixes`: parameter names (as in named_parameters) starting with
  // one of these get weight decay; empty = every parameter does.
  // `description`: how to rebuild the model (empty for a model built by hand;
  // otherwise its kind must be `kind`).
  Model(std::string kind, std::shared_ptr<Sequential> layers, std::vector<std::string> decayed_prefixes,
        ModelDescription description = {});
  // x float32 or bfloat16; converted to the model's activation dtype first
  // (one pass: give bfloat16 features to a bf16 model to skip it).
  Tensor forward(const GraphInput& graph, const Tensor& x);
  const std::string& kind() const { return kind_; }
  const Sequential& layers() const { return *layers_; }
  // As recorded by make_gcn / make_gat, with the precision the model computes in now (set_precision).
  ModelDescription description() const;
  // Two groups: the decayed parameters (weight_decay) and the rest (0), in
  // named_parameters order; the second is left out when empty. In BFloat16
  // the groups carry the compute copies, which the optimizer then refreshes.
  std::vector<ParameterGroup> parameter_groups(float weight_decay) const;

 private:
  std::string kind_;
  std::shared_ptr<Sequential> layers_;
  std::vector<std::string> decayed_prefixes_;
  ModelDescription description_;
};

struct GcnConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 16;
  int64_t layers = 2;  // GCNConv layers (>= 1); hidden ones all of width `hidden`
  float dropout = 0.5f;
  // Recorded in the description (the caller transforms the features:
  // graph_io::apply_feature_transform) and the precision of the parameters.
  graph_io::FeatureTransform feature_transform = graph_io::FeatureTransform::RowNormalize;
  Precision precision = Precision::Fp32;
};

struct GatConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 8;        // per head
  int64_t heads = 8;
  int64_t output_heads = 1;  // averaged
  float dropout = 0.6f;      // on features and on attention
  bool projected_dropout = false;  // also on W·x before aggregation (Veličković et al.'s code)
  graph_io::FeatureTransform feature_transform = graph_io::FeatureTransform::RowNormalize;  // as in GcnConfig
  Precision precision = Precision::Fp32;
};

// Initial weights come from `generator`, and so do the dropout masks during
// training: it must outlive the model. InvalidArgument on sizes <= 0.
std::shared_ptr<Model> make_gcn(const GcnConfig& config, Generator& generator);
std::shared_ptr<Model> make_gat(const GatConfig& config, Generator& generator);
// The model `description` describes (kind "gcn" or "gat"), with fresh
// parameters. InvalidArgument naming the problem for a description this
// build cannot make (an unknown kind, a GCN with unequal hidden widths, a
// GAT with other than two layers, an activation or normalisation the kind
// does not use, ...).
std::shared_ptr<Model> make_model(const ModelDescription& description, Generator& generator);

}  // namespace sgnn::training
