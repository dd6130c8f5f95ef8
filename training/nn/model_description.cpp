#include "training/nn/model_description.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::training {

namespace {

constexpr const char* kHyperparameterPrefix = "model.hyperparameter.";

// Reads one metadata key; every failure is IoError(source, 0, ...) naming it.
class MetadataReader {
 public:
  MetadataReader(const std::map<std::string, std::string>& metadata, const std::string& source)
      : metadata_(metadata), source_(source) {}

  const std::string& text(const std::string& key) const {
    const auto found = metadata_.find(key);
    if (found == metadata_.end()) throw IoError(source_, 0, "missing model description entry \"" + key + "\"");
    return found->second;
  }
  [[noreturn]] void malformed(const std::string& key, const std::string& why) const {
    throw IoError(source_, 0, detail::concat("model description entry \"", key, "\" = \"", text(key), "\": ", why));
  }
  // A positive size below 2^31 (feature widths, classes, heads).
  static bool parse_size(std::string_view token, int64_t& value) {
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    return error == std::errc() && end == token.data() + token.size() && !token.empty() && value > 0 &&
           value < (int64_t{1} << 31);
  }
  int64_t size(const std::string& key) const {
    int64_t value = 0;
    if (!parse_size(text(key), value)) malformed(key, "expected a positive integer below 2^31");
    return value;
  }
  std::vector<int64_t> sizes(const std::string& key) const {
    const std::string& list = text(key);
    std::vector<int64_t> values;
    std::size_t begin = 0;
    for (;;) {
      const std::size_t comma = list.find(',', begin);
      int64_t value = 0;
      if (!parse_size(std::string_view(list).substr(begin, comma - begin), value) || values.size() >= 64) {
        malformed(key, "expected up to 64 comma-separated positive integers");
      }
      values.push_back(value);
      if (comma == std::string::npos) return values;
      begin = comma + 1;
    }
  }
  float probability(const std::string& key) const {
    const std::string& token = text(key);
    float value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size() || !(value >= 0.0f && value < 1.0f)) {
      malformed(key, "expected a number in [0, 1)");
    }
    return value;
  }
  bool flag(const std::string& key) const {
    if (text(key) == "true") return true;
    if (text(key) != "false") malformed(key, "expected true or false");
    return false;
  }
  const std::string& one_of(const std::string& key, const std::vector<std::string>& words) const {
    for (const std::string& word : words) {
      if (text(key) == word) return text(key);
    }
    std::string expected;
    for (const std::string& word : words) expected += (expected.empty() ? "" : ", ") + word;
    malformed(key, "expected " + expected);
  }
  template <typename Parse>
  auto parsed(const std::string& key, const Parse& parse) const {
    try {
      return parse(text(key));
    } catch (const InvalidArgument& error) {
      malformed(key, error.what());
    }
  }

 private:
  const std::map<std::string, std::string>& metadata_;
  const std::string& source_;
};

// The per-layer form of checkpoints written before the registry, converted
// by the kind's entry.
std::map<std::string, std::string> layer_list_hyperparameters(const std::string& kind, const MetadataReader& read,
                                                              int64_t classes) {
  LayerListDescription layers;
  layers.widths = read.sizes("model.widths");
  layers.heads = read.sizes("model.heads");
  if (layers.heads.size() != layers.widths.size()) {
    read.malformed("model.heads", "one entry per layer of model.widths expected");
  }
  if (layers.widths.back() != classes) read.malformed("model.widths", "the last layer's width is not model.classes");
  layers.activation = read.text("model.activation");
  layers.normalization = read.one_of("model.normalization", {"symmetric", "row", "none"});
  layers.dropout = read.probability("model.dropout");
  layers.projected_dropout = read.flag("model.projected_dropout");
  const ModelEntry* entry = find_model_entry(kind);
  if (entry == nullptr || !entry->from_layer_list) {
    read.malformed("model", "a model described per layer (an older checkpoint) of a kind this build cannot convert");
  }
  try {
    return entry->from_layer_list(layers);
  } catch (const InvalidArgument& error) {
    read.malformed("model.widths", error.what());
  }
}

const std::string& hyperparameter_text(const ModelDescription& d, const std::string& name) {
  const auto found = d.hyperparameters.find(name);
  SGNN_CHECK(found != d.hyperparameters.end(), "model ", d.kind, ": no hyperparameter \"", name,
             "\" in its description");
  return found->second;
}

}  // namespace

int64_t ModelDescription::integer(const std::string& name) const {
  return integer_value(hyperparameter_text(*this, name), name, "model " + kind);
}

float ModelDescription::number(const std::string& name) const {
  return number_value(hyperparameter_text(*this, name), name, "model " + kind);
}

bool ModelDescription::enabled(const std::string& name) const {
  return switch_value(hyperparameter_text(*this, name), name, "model " + kind);
}

const std::string& ModelDescription::text(const std::string& name) const { return hyperparameter_text(*this, name); }

std::string description_summary(const ModelDescription& d) {
  if (!d.described()) return "a model without a description";
  const ModelEntry* entry = find_model_entry(d.kind);
  std::string layers;
  if (entry != nullptr && entry->layers_text) {
    layers = entry->layers_text(d);
  } else {
    std::string settings;
    for (const auto& [name, value] : d.hyperparameters) {
      const Hyperparameter* declared = nullptr;
      if (entry != nullptr) {
        for (const Hyperparameter& h : entry->hyperparameters) declared = h.name == name ? &h : declared;
      }
      if (declared != nullptr && declared->role != HyperparameterRole::Architecture) continue;
      settings += (settings.empty() ? "" : ", ") + name + " " + value;
    }
    layers = detail::concat(d.in_features, " -> ", d.classes, settings.empty() ? "" : " (" + settings + ")");
  }
  return detail::concat(d.kind, " ", layers, ", ", graph_io::feature_transform_name(d.feature_transform),
                        " features, ", precision_name(d.precision));
}

std::map<std::string, std::string> description_metadata(const ModelDescription& d) {
  SGNN_CHECK(d.described(), "description_metadata: the model has no description (built by hand?)");
  std::map<std::string, std::string> metadata{{"model", d.kind},
                                              {"model.in_features", std::to_string(d.in_features)},
                                              {"model.classes", std::to_string(d.classes)},
                                              {"features.transform", graph_io::feature_transform_name(d.feature_transform)},
                                              {"precision", precision_name(d.precision)}};
  if (d.edge_features > 0) metadata["model.edge_features"] = std::to_string(d.edge_features);
  for (const auto& [name, value] : d.hyperparameters) metadata[kHyperparameterPrefix + name] = value;
  return metadata;
}

ModelDescription description_from_metadata(const std::map<std::string, std::string>& metadata,
                                           const std::string& source) {
  const MetadataReader read(metadata, source);
  ModelDescription d;
  d.kind = read.text("model");
  if (d.kind.empty()) read.malformed("model", "empty model kind");
  d.in_features = read.size("model.in_features");
  d.classes = read.size("model.classes");
  if (metadata.contains("model.edge_features")) d.edge_features = read.size("model.edge_features");
  if (metadata.contains("model.widths")) {
    d.hyperparameters = layer_list_hyperparameters(d.kind, read, d.classes);
  } else {
    const std::string prefix = kHyperparameterPrefix;
    for (auto it = metadata.lower_bound(prefix); it != metadata.end() && it->first.starts_with(prefix); ++it) {
      d.hyperparameters[it->first.substr(prefix.size())] = it->second;
    }
  }
  d.feature_transform = read.parsed("features.transform", graph_io::parse_feature_transform);
  d.precision = read.parsed("precision", parse_precision);
  return d;
}

std::string description_difference(const ModelDescription& checkpoint, const ModelDescription& model) {
  const auto differ = [](const std::string& what, const std::string& theirs, const std::string& ours) {
    return detail::concat("the checkpoint's model ", what, " ", theirs, ", this one ", ours);
  };
  if (checkpoint.kind != model.kind) return differ("is a", checkpoint.kind, "a " + model.kind);
  if (checkpoint.in_features != model.in_features) {
    return differ("reads features of width", std::to_string(checkpoint.in_features),
                  std::to_string(model.in_features) + " (another dataset?)");
  }
  if (checkpoint.classes != model.classes) {
    return differ("predicts", std::to_string(checkpoint.classes) + " classes", std::to_string(model.classes));
  }
  if (checkpoint.edge_features != model.edge_features) {
    return differ("reads edge features of width", std::to_string(checkpoint.edge_features),
                  std::to_string(model.edge_features) + " (another dataset?)");
  }
  const ModelEntry* entry = find_model_entry(model.kind);
  const auto regularization = [entry](const std::string& name) {
    if (entry == nullptr) return false;
    for (const Hyperparameter& h : entry->hyperparameters) {
      if (h.name == name) return h.role == HyperparameterRole::Regularization;
    }
    return false;
  };
  std::map<std::string, std::string> names;  // every name either side has, with its flag
  for (const auto* side : {&checkpoint.hyperparameters, &model.hyperparameters}) {
    for (const auto& entry_value : *side) names[entry_value.first] = "--" + entry_value.first;
  }
  for (auto& [name, flag] : names) {
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (regularization(name)) continue;
    const auto theirs = checkpoint.hyperparameters.find(name);
    const auto ours = model.hyperparameters.find(name);
    const std::string their_value = theirs == checkpoint.hyperparameters.end() ? "(none)" : theirs->second;
    const std::string our_value = ours == model.hyperparameters.end() ? "(none)" : ours->second;
    if (their_value != our_value) return differ("has " + name, their_value, our_value + " (" + flag + "?)");
  }
  if (checkpoint.feature_transform != model.feature_transform) {
    return differ("reads", std::string(graph_io::feature_transform_name(checkpoint.feature_transform)) + " features",
                  std::string(graph_io::feature_transform_name(model.feature_transform)) + " (--no-row-normalize?)");
  }
  if (checkpoint.precision != model.precision) {
    return differ("computes in", precision_name(checkpoint.precision), precision_name(model.precision));
  }
  return "";
}

graph_io::GraphOptions description_graph_options(const ModelDescription& description) {
  return model_entry(description.kind).graph;
}

}  // namespace sgnn::training
