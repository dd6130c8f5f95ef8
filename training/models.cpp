#include "training/models.hpp"

#include "ops/cast.hpp"
#include "training/gat_conv.hpp"
#include "training/gcn_conv.hpp"

namespace sgnn::training {

Model::Model(std::string kind, std::shared_ptr<Sequential> layers, std::vector<std::string> decayed_prefixes)
    : kind_(std::move(kind)), layers_(std::move(layers)), decayed_prefixes_(std::move(decayed_prefixes)) {
  register_module("layers", layers_);
}

Tensor Model::forward(const GraphInput& graph, const Tensor& x) {
  check_floating(x, "Model::forward", "x");
  return layers_->forward(graph, ops::cast(x, activation_dtype()));
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

std::shared_ptr<Model> make_gcn(const GcnConfig& config, Generator& generator) {
  SGNN_CHECK(config.in_features > 0 && config.classes > 0 && config.hidden > 0 && config.layers >= 1,
             "make_gcn: in_features (", config.in_features, "), classes (", config.classes, "), hidden (",
             config.hidden, ") and layers (", config.layers, ") must be positive");
  auto layers = std::make_shared<Sequential>();
  int64_t width = config.in_features;
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    const bool last = layer + 1 == config.layers;
    const int64_t out = last ? config.classes : config.hidden;
    layers->append(std::make_shared<Dropout>(config.dropout, generator));
    layers->append(std::make_shared<GCNConv>(width, out, generator));
    if (!last) layers->append(std::make_shared<Relu>());
    width = out;
  }
  // Kipf & Welling decay only the first layer's weights: layers.1 is the first GCNConv.
  auto model = std::make_shared<Model>("gcn", layers, std::vector<std::string>{"layers.1."});
  model->set_precision(config.precision);
  return model;
}

std::shared_ptr<Model> make_gat(const GatConfig& config, Generator& generator) {
  SGNN_CHECK(config.in_features > 0 && config.classes > 0 && config.hidden > 0 && config.heads > 0 &&
                 config.output_heads > 0,
             "make_gat: in_features (", config.in_features, "), classes (", config.classes, "), hidden (",
             config.hidden, "), heads (", config.heads, ") and output_heads (", config.output_heads,
             ") must be positive");
  GATOptions hidden_options;
  hidden_options.heads = config.heads;
  hidden_options.concat = true;
  hidden_options.attention_dropout = config.dropout;
  hidden_options.projected_dropout = config.projected_dropout ? config.dropout : 0.0f;
  GATOptions output_options = hidden_options;
  output_options.heads = config.output_heads;
  output_options.concat = false;
  auto layers = std::make_shared<Sequential>();
  layers->append(std::make_shared<Dropout>(config.dropout, generator));
  layers->append(std::make_shared<GATConv>(config.in_features, config.hidden, generator, hidden_options));
  layers->append(std::make_shared<Elu>());
  layers->append(std::make_shared<Dropout>(config.dropout, generator));
  layers->append(
      std::make_shared<GATConv>(config.hidden * config.heads, config.classes, generator, output_options));
  auto model = std::make_shared<Model>("gat", layers, std::vector<std::string>{});
  model->set_precision(config.precision);
  return model;
}

}  // namespace sgnn::training
