// The two models of the papers, built from the layers.
//
// GCN (Kipf & Welling 2017): dropout → GCNConv(in, hidden) → ReLU → dropout →
//   GCNConv(hidden, classes). Weight decay on the first layer only.
// GAT (Veličković et al. 2018): dropout → GATConv(in, hidden, heads, concat,
//   attention dropout) → ELU → dropout → GATConv(hidden·heads, classes,
//   output_heads, mean over heads). Weight decay on every parameter.
// Both return logits [N, classes] (the loss applies the softmax), of the
// model's activation dtype: bfloat16 in BFloat16 precision (the loss reads
// them as float and is float32).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/generator.hpp"
#include "training/basic_layers.hpp"
#include "training/optimizer.hpp"

namespace sgnn::training {

class Model : public Module {
 public:
  // `decayed_prefixes`: parameter names (as in named_parameters) starting with
  // one of these get weight decay; empty = every parameter does.
  Model(std::string kind, std::shared_ptr<Sequential> layers, std::vector<std::string> decayed_prefixes);
  // x float32 or bfloat16; converted to the model's activation dtype first
  // (one pass: give bfloat16 features to a BFloat16 model to skip it).
  Tensor forward(const GraphInput& graph, const Tensor& x);
  const std::string& kind() const { return kind_; }
  const Sequential& layers() const { return *layers_; }
  // Two groups: the decayed parameters (weight_decay) and the rest (0), in
  // named_parameters order; the second is left out when empty. In BFloat16
  // the groups carry the compute copies, which the optimizer then refreshes.
  std::vector<ParameterGroup> parameter_groups(float weight_decay) const;

 private:
  std::string kind_;
  std::shared_ptr<Sequential> layers_;
  std::vector<std::string> decayed_prefixes_;
};

struct GcnConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 16;
  int64_t layers = 2;  // GCNConv layers (>= 1); hidden ones all of width `hidden`
  float dropout = 0.5f;
  Precision precision = Precision::Float32;
};

struct GatConfig {
  int64_t in_features = 0;
  int64_t classes = 0;
  int64_t hidden = 8;        // per head
  int64_t heads = 8;
  int64_t output_heads = 1;  // averaged
  float dropout = 0.6f;      // on features and on attention
  bool projected_dropout = false;  // also on W·x before aggregation (Veličković et al.'s code)
  Precision precision = Precision::Float32;
};

// Initial weights come from `generator`, and so do the dropout masks during
// training: it must outlive the model. InvalidArgument on sizes <= 0.
std::shared_ptr<Model> make_gcn(const GcnConfig& config, Generator& generator);
std::shared_ptr<Model> make_gat(const GatConfig& config, Generator& generator);

}  // namespace sgnn::training
