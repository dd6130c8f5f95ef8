#include "training/nn/model_description.hpp"

#include <charconv>
#include <cmath>

#include "core/error.hpp"

namespace sgnn::training {

namespace {

const char* normalization_name(graph_io::Normalization normalization) {
  switch (normalization) {
    case graph_io::Normalization::Symmetric: return "symmetric";
    case graph_io::Normalization::Row: return "row";
    case graph_io::Normalization::None: return "none";
  }
  return "?";
}

std::string join(const std::vector<int64_t>& values, const char* separator) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += separator;
    text += std::to_string(values[i]);
  }
  return text;
}

std::string shortest(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

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
  graph_io::Normalization normalization(const std::string& key) const {
    for (const graph_io::Normalization n :
         {graph_io::Normalization::None, graph_io::Normalization::Symmetric, graph_io::Normalization::Row}) {
      if (text(key) == normalization_name(n)) return n;
    }
    malformed(key, "expected symmetric, row or none");
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

}  // namespace

std::string description_summary(const ModelDescription& d) {
  if (!d.described()) return "a model without a description";
  std::string layers = std::to_string(d.in_features);
  for (std::size_t i = 0; i < d.widths.size(); ++i) {
    const int64_t heads = i < d.heads.size() ? d.heads[i] : 1;
    const bool last = i + 1 == d.widths.size();
    layers += " -> " + (heads == 1 ? std::to_string(d.widths[i])
                                   : detail::concat(heads, (last ? " heads (mean) x " : " heads x "), d.widths[i]));
  }
  return detail::concat(d.kind, " ", layers, " (", d.activation, "), ", normalization_name(d.normalization),
                        " adjacency, ", graph_io::feature_transform_name(d.feature_transform), " features, ",
                        precision_name(d.precision));
}

std::map<std::string, std::string> description_metadata(const ModelDescription& d) {
  SGNN_CHECK(d.described(), "description_metadata: the model has no description (built by hand?)");
  return {{"model", d.kind},
          {"model.in_features", std::to_string(d.in_features)},
          {"model.classes", std::to_string(d.classes)},
          {"model.widths", join(d.widths, ",")},
          {"model.heads", join(d.heads, ",")},
          {"model.activation", d.activation},
          {"model.normalization", normalization_name(d.normalization)},
          {"model.dropout", shortest(d.dropout)},
          {"model.projected_dropout", d.projected_dropout ? "true" : "false"},
          {"features.transform", graph_io::feature_transform_name(d.feature_transform)},
          {"precision", precision_name(d.precision)}};
}

ModelDescription description_from_metadata(const std::map<std::string, std::string>& metadata,
                                           const std::string& source) {
  const MetadataReader read(metadata, source);
  ModelDescription d;
  d.kind = read.text("model");
  if (d.kind.empty()) read.malformed("model", "empty model kind");
  d.in_features = read.size("model.in_features");
  d.classes = read.size("model.classes");
  d.widths = read.sizes("model.widths");
  d.heads = read.sizes("model.heads");
  if (d.heads.size() != d.widths.size()) read.malformed("model.heads", "one entry per layer of model.widths expected");
  if (d.widths.back() != d.classes) read.malformed("model.widths", "the last layer's width is not model.classes");
  d.activation = read.text("model.activation");
  d.normalization = read.normalization("model.normalization");
  d.dropout = read.probability("model.dropout");
  d.projected_dropout = read.flag("model.projected_dropout");
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
  if (checkpoint.widths != model.widths || checkpoint.heads != model.heads) {
    return differ("has layers", description_summary(checkpoint), description_summary(model) + " (--hidden, --heads?)");
  }
  if (checkpoint.activation != model.activation) return differ("uses", checkpoint.activation, model.activation);
  if (checkpoint.normalization != model.normalization) {
    return differ("aggregates over a", std::string(normalization_name(checkpoint.normalization)) + " adjacency",
                  normalization_name(model.normalization));
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
  graph_io::GraphOptions options = graph_io::gcn_graph_options();
  options.prepare.normalization = description.normalization;
  return options;
}

}  // namespace sgnn::training
