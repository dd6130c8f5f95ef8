#include "training/nn/models.hpp"

#include "ops/cast.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::training {

Model::Model(std::string kind, std::shared_ptr<Sequential> layers, std::vector<std::string> decayed_prefixes,
             ModelDescription description)
    : kind_(std::move(kind)),
      layers_(std::move(layers)),
      decayed_prefixes_(std::move(decayed_prefixes)),
      description_(std::move(description)) {
  SGNN_CHECK(!description_.described() || description_.kind == kind_, "Model: a ", kind_,
             " model with the description of a ", description_.kind);
  register_module("layers", layers_);
}

ModelDescription Model::description() const {
  ModelDescription described = description_;
  described.precision = precision();
  return described;
}

Tensor Model::forward(const GraphInput& graph, const Tensor& x) {
  check_floating(x, "Model::forward", "x");
  return layers_->forward(graph, ops::cast(x, activation_dtype()));
}

Tensor Model::forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) {
  check_floating(x, "Model::forward_rows", "x");
  return layers_->forward_rows(graph, ops::cast(x, activation_dtype()), rows);
}

std::vector<ParameterGroup> Model::parameter_groups(float weight_decay) const {
  ParameterGroup decayed;
  ParameterGroup plain;
  decayed.weight_decay = weight_decay;
  plain.weight_decay = 0.0f;
  const std::vector<Tensor> copies = compute_copies();
  std::size_t position = 0;
  for (const auto& [name, parameter] : named_parameters()) {
    bool decay = decayed_prefixes_.empty();
    for (const std::string& prefix : decayed_prefixes_) decay = decay || name.starts_with(prefix);
    ParameterGroup& group = decay ? decayed : plain;
    group.parameters.push_back(parameter);
    group.compute_copies.push_back(copies[position++]);
  }
  std::vector<ParameterGroup> groups{decayed};
  if (!plain.parameters.empty()) groups.push_back(plain);
  return groups;
}

std::shared_ptr<Model> make_model(const ModelDescription& description, Generator& generator) {
  const ModelDescription complete = complete_description(description);
  const ModelEntry& entry = model_entry(complete.kind);
  std::shared_ptr<Sequential> layers = entry.build(complete, generator);
  SGNN_CHECK(layers != nullptr, "make_model: the build function of model ", complete.kind, " returned no layers");
  auto model = std::make_shared<Model>(complete.kind, std::move(layers), entry.decayed_parameters, complete);
  model->set_precision(complete.precision);
  return model;
}

}  // namespace sgnn::training
