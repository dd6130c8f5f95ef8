#include "training/nn/models.hpp"

#include "ops/cast.hpp"
#include "training/nn/gat_conv.hpp"
#include "training/nn/gcn_conv.hpp"

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
  ModelDescription description;
  description.kind = "gcn";
  description.in_features = config.in_features;
  description.classes = config.classes;
  description.widths.assign(static_cast<std::size_t>(config.layers - 1), config.hidden);
  description.widths.push_back(config.classes);
  description.heads.assign(static_cast<std::size_t>(config.layers), 1);
  description.activation = "relu";
  description.normalization = graph_io::Normalization::Symmetric;
  description.feature_transform = config.feature_transform;
  description.precision = config.precision;
  description.dropout = config.dropout;
  // Kipf & Welling decay only the first layer's weights: layers.1 is the first GCNConv.
  auto model =
      std::make_shared<Model>("gcn", layers, std::vector<std::string>{"layers.1."}, std::move(description));
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
  ModelDescription description;
  description.kind = "gat";
  description.in_features = config.in_features;
  description.classes = config.classes;
  description.widths = {config.hidden, config.classes};
  description.heads = {config.heads, config.output_heads};
  description.activation = "elu";
  description.normalization = graph_io::Normalization::None;
  description.feature_transform = config.feature_transform;
  description.precision = config.precision;
  description.dropout = config.dropout;
  description.projected_dropout = config.projected_dropout;
  auto model = std::make_shared<Model>("gat", layers, std::vector<std::string>{}, std::move(description));
  model->set_precision(config.precision);
  return model;
}

std::shared_ptr<Model> make_model(const ModelDescription& d, Generator& generator) {
  const std::string what = "make_model (" + description_summary(d) + "): ";
  SGNN_CHECK(d.described(), what, "nothing to build");
  SGNN_CHECK(!d.widths.empty() && d.widths.size() == d.heads.size() && d.widths.back() == d.classes, what,
             "expected one width and one head count per layer, the last width being the class count");
  if (d.kind == "gcn") {
    for (std::size_t i = 0; i < d.widths.size(); ++i) {
      SGNN_CHECK(d.heads[i] == 1, what, "a GCN layer has one head, layer ", i + 1, " has ", d.heads[i]);
      SGNN_CHECK(i + 1 == d.widths.size() || d.widths[i] == d.widths.front(), what,
                 "this build's GCN has hidden layers of one width");
    }
    SGNN_CHECK(d.activation == "relu", what, "this build's GCN uses relu, not ", d.activation);
    SGNN_CHECK(d.normalization == graph_io::Normalization::Symmetric, what,
               "this build's GCN aggregates over the symmetric-normalised adjacency");
    SGNN_CHECK(!d.projected_dropout, what, "projected dropout is a GAT option");
    GcnConfig config;
    config.in_features = d.in_features;
    config.classes = d.classes;
    config.layers = static_cast<int64_t>(d.widths.size());
    config.hidden = d.widths.size() > 1 ? d.widths.front() : config.hidden;
    config.dropout = d.dropout;
    config.feature_transform = d.feature_transform;
    config.precision = d.precision;
    return make_gcn(config, generator);
  }
  if (d.kind == "gat") {
    SGNN_CHECK(d.widths.size() == 2, what, "this build's GAT has 2 layers, not ", d.widths.size());
    SGNN_CHECK(d.activation == "elu", what, "this build's GAT uses elu, not ", d.activation);
    SGNN_CHECK(d.normalization == graph_io::Normalization::None, what,
               "this build's GAT attends over the unnormalised adjacency");
    GatConfig config;
    config.in_features = d.in_features;
    config.classes = d.classes;
    config.hidden = d.widths.front();
    config.heads = d.heads.front();
    config.output_heads = d.heads.back();
    config.dropout = d.dropout;
    config.projected_dropout = d.projected_dropout;
    config.feature_transform = d.feature_transform;
    config.precision = d.precision;
    return make_gat(config, generator);
  }
  throw InvalidArgument(detail::concat(what, "unknown model kind \"", d.kind, "\" (this build makes gcn and gat)"));
}

}  // namespace sgnn::training
