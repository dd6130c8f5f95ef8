// ModelDescription: what make_gcn / make_gat record, its text form, and
// make_model rebuilding the same architecture (or refusing what it cannot).
#include <doctest/doctest.h>

#include "training/nn/models.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

std::vector<std::pair<std::string, Shape>> shapes(const Model& model) {
  std::vector<std::pair<std::string, Shape>> out;
  for (const auto& [name, parameter] : model.named_parameters()) out.emplace_back(name, parameter.shape());
  return out;
}

// A GAT of 3 heads of 4, 2 averaged output heads, features used as stored.
GatConfig gat_config() {
  GatConfig config;
  config.in_features = 12;
  config.classes = 5;
  config.hidden = 4;
  config.heads = 3;
  config.output_heads = 2;
  config.dropout = 0.25f;
  config.projected_dropout = true;
  config.feature_transform = graph_io::FeatureTransform::None;
  return config;
}

ModelDescription gat_description() {
  Generator generator(1);
  return make_gat(gat_config(), generator)->description();
}

}  // namespace

TEST_CASE("make_gcn and make_gat describe their models") {
  GcnConfig gcn;
  gcn.in_features = 10;
  gcn.classes = 4;
  gcn.hidden = 6;
  gcn.layers = 3;
  Generator generator(1);
  const ModelDescription d = make_gcn(gcn, generator)->description();
  CHECK(d.kind == "gcn");
  CHECK(d.in_features == 10);
  CHECK(d.classes == 4);
  CHECK(d.widths == std::vector<int64_t>{6, 6, 4});
  CHECK(d.heads == std::vector<int64_t>{1, 1, 1});
  CHECK(d.activation == "relu");
  CHECK(d.normalization == graph_io::Normalization::Symmetric);
  CHECK(d.feature_transform == graph_io::FeatureTransform::RowNormalize);
  CHECK(d.precision == Precision::Fp32);
  CHECK(description_summary(d) == "gcn 10 -> 6 -> 6 -> 4 (relu), symmetric adjacency, row-normalize features, fp32");

  const ModelDescription g = gat_description();
  CHECK(g.widths == std::vector<int64_t>{4, 5});
  CHECK(g.heads == std::vector<int64_t>{3, 2});
  CHECK(g.activation == "elu");
  CHECK(g.normalization == graph_io::Normalization::None);
  CHECK(g.projected_dropout);
  CHECK(description_summary(g) ==
        "gat 12 -> 3 heads x 4 -> 2 heads (mean) x 5 (elu), none adjacency, none features, fp32");
}

TEST_CASE("a description survives its text form and rebuilds a model with the same parameters") {
  const ModelDescription original = gat_description();
  const std::map<std::string, std::string> metadata = description_metadata(original);
  CHECK(metadata.at("model.widths") == "4,5");
  CHECK(metadata.at("model.heads") == "3,2");
  CHECK(metadata.at("model.dropout") == "0.25");
  CHECK(metadata.at("features.transform") == "none");
  CHECK(metadata.at("precision") == "fp32");
  const ModelDescription read = description_from_metadata(metadata, "file.ckpt");
  CHECK(description_difference(read, original).empty());
  CHECK(read.dropout == original.dropout);
  CHECK(read.projected_dropout == original.projected_dropout);

  Generator first(3), second(3);
  const std::shared_ptr<Model> built = make_gat(gat_config(), first);
  const std::shared_ptr<Model> rebuilt = make_model(read, second);
  CHECK(shapes(*rebuilt) == shapes(*built));
  CHECK(rebuilt->description().feature_transform == graph_io::FeatureTransform::None);

  GcnConfig gcn;
  gcn.in_features = 9;
  gcn.classes = 2;
  gcn.layers = 1;
  const std::shared_ptr<Model> linear = make_gcn(gcn, first);
  CHECK(shapes(*make_model(linear->description(), second)) == shapes(*linear));
}

TEST_CASE("description_from_metadata names the entry that is missing or malformed") {
  const std::map<std::string, std::string> good = description_metadata(gat_description());
  const auto refused = [&](const std::string& key, const std::string& value, const std::string& expected) {
    CAPTURE(key);
    CAPTURE(value);
    std::map<std::string, std::string> bad = good;
    if (value.empty()) {
      bad.erase(key);
    } else {
      bad[key] = value;
    }
    CHECK_THROWS_WITH_AS(description_from_metadata(bad, "x.ckpt"), doctest::Contains(expected.c_str()), IoError);
  };
  refused("model.widths", "", "missing model description entry \"model.widths\"");
  refused("model.widths", "4,x", "\"model.widths\" = \"4,x\"");
  refused("model.widths", "4,-5", "positive integers");
  refused("model.widths", "4,6", "the last layer's width is not model.classes");
  refused("model.heads", "3", "one entry per layer");
  refused("model.in_features", "0", "positive integer");
  refused("model.classes", "99999999999", "positive integer");
  refused("model.dropout", "1.5", "in [0, 1)");
  refused("model.projected_dropout", "yes", "true or false");
  refused("model.normalization", "mean", "symmetric, row or none");
  refused("features.transform", "standardize", "row-normalize");
  refused("precision", "fp16", "not one this build knows");
}

TEST_CASE("description_difference names the first incompatible field, ignoring dropout") {
  const ModelDescription a = gat_description();
  ModelDescription b = a;
  b.dropout = 0.5f;
  b.projected_dropout = false;
  CHECK(description_difference(a, b).empty());
  b = a;
  b.in_features = 13;
  CHECK(description_difference(a, b).find("reads features of width 12, this one 13") != std::string::npos);
  b = a;
  b.heads = {4, 2};
  CHECK(description_difference(a, b).find("has layers") != std::string::npos);
  b = a;
  b.feature_transform = graph_io::FeatureTransform::RowNormalize;
  CHECK(description_difference(a, b).find("reads none features, this one row-normalize") != std::string::npos);
  b = a;
  b.kind = "gcn";
  CHECK(description_difference(a, b).find("is a gat, this one a gcn") != std::string::npos);
}

TEST_CASE("make_model refuses descriptions this build cannot make") {
  Generator generator(1);
  const auto refused = [&](const ModelDescription& d, const std::string& expected) {
    CAPTURE(description_summary(d));
    CHECK_THROWS_WITH_AS(make_model(d, generator), doctest::Contains(expected.c_str()), InvalidArgument);
  };
  ModelDescription d = gat_description();
  d.kind = "sage";
  refused(d, "unknown model kind \"sage\"");
  d = gat_description();
  d.widths = {4, 4, 5};
  d.heads = {3, 3, 2};
  refused(d, "this build's GAT has 2 layers");
  d = gat_description();
  d.activation = "relu";
  refused(d, "uses elu");
  d = gat_description();
  d.normalization = graph_io::Normalization::Symmetric;
  refused(d, "unnormalised adjacency");
  d = gat_description();
  d.kind = "gcn";
  refused(d, "a GCN layer has one head");
  d.heads = {1, 1};
  d.activation = "relu";
  d.normalization = graph_io::Normalization::Symmetric;
  d.projected_dropout = false;
  CHECK_NOTHROW(make_model(d, generator));
  d.widths = {4, 6, 5};
  d.heads = {1, 1, 1};
  refused(d, "hidden layers of one width");
  d = ModelDescription{};
  refused(d, "nothing to build");
}
