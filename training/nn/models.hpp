// Model: a registered kind's layers (training/nn/model_registry.hpp), run
// in order on a graph, with the description that rebuilds it and the
// parameters its kind gives weight decay. Returns logits [N, classes] (the
// loss applies the softmax) of the model's activation dtype (bfloat16 in
// bf16 precision: the loss reads them as float and is float32).
//
// make_model builds a model of any registered kind from its description:
//   ModelDescription d;
//   d.kind = "gcn"; d.in_features = 1433; d.classes = 7;
//   d.hyperparameters = {{"hidden", "32"}};  // the others: the kind's defaults
//   std::shared_ptr<Model> model = make_model(d, generator);
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
  // Rows `rows` (int32 [R]) of forward(graph, x) (Layer::forward_rows), and
  // whether they cost less than the whole forward (the trainer's choice).
  Tensor forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows);
  bool forward_rows_is_cheaper() const { return layers_->forward_rows_is_cheaper(); }
  const std::string& kind() const { return kind_; }
  const Sequential& layers() const { return *layers_; }
  // As recorded by make_model, with the precision the model computes in now (set_precision).
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

// A model of `description`'s kind with fresh parameters, its description
// completed with the kind's defaults (complete_description) and its
// precision set. Initial weights come from `generator`, and so do the
// dropout masks during training: it must outlive the model.
// InvalidArgument for an unknown kind, sizes <= 0, an unknown hyperparameter
// or a bad value (naming the model and the hyperparameter).
std::shared_ptr<Model> make_model(const ModelDescription& description, Generator& generator);

}  // namespace sgnn::training
