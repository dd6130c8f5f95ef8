// ModelDescription: what make_model records (completed with the kind's
// defaults), its text form, make_model rebuilding the same architecture, the
// per-layer form of checkpoints written before the registry, and refusals.
#include <doctest/doctest.h>

#include "training/nn/model_registry.hpp"
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
const ModelDescription kGat{.kind = "gat",
                            .in_features = 12,
                            .classes = 5,
                            .hyperparameters = {{"hidden", "4"},
                                                {"heads", "3"},
                                                {"output_heads", "2"},
                                                {"dropout", "0.25"},
                                                {"projected_dropout", "on"}},
                            .feature_transform = graph_io::FeatureTransform::None};

ModelDescription gat_description() {
  Generator generator(1);
  return make_model(kGat, generator)->description();
}

}  // namespace

TEST_CASE("make_model describes its models, completed with the kind's defaults") {
  Generator generator(1);
  const ModelDescription d = make_model({.kind = "gcn",
                                         .in_features = 10,
                                         .classes = 4,
                                         .hyperparameters = {{"hidden", "6"}, {"layers", "3"}}},
                                        generator)
                                 ->description();
  CHECK(d.kind == "gcn");
  CHECK(d.in_features == 10);
  CHECK(d.classes == 4);
  CHECK(d.hyperparameters == std::map<std::string, std::string>{{"hidden", "6"}, {"layers", "3"}, {"dropout", "0.5"}});
  CHECK(d.integer("layers") == 3);
  CHECK(d.number("dropout") == 0.5f);
  CHECK(d.feature_transform == graph_io::FeatureTransform::RowNormalize);
  CHECK(d.precision == Precision::Fp32);
  CHECK(description_summary(d) == "gcn 10 -> 6 -> 6 -> 4 (relu), symmetric adjacency, row-normalize features, fp32");
  CHECK_THROWS_WITH_AS(d.integer("heads"), doctest::Contains("model gcn: no hyperparameter \"heads\""),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(d.integer("dropout"), doctest::Contains("\"0.5\" is not an integer"), InvalidArgument);

  const ModelDescription g = gat_description();
  CHECK(g.enabled("projected_dropout"));
  CHECK(g.integer("output_heads") == 2);
  CHECK(g.hyperparameters.size() == 5);  // the Optimization ones (epochs, lr, ...) are not the model's
  CHECK(description_summary(g) ==
        "gat 12 -> 3 heads x 4 -> 2 heads (mean) x 5 (elu), none adjacency, none features, fp32");
}

TEST_CASE("a description survives its text form and rebuilds a model with the same parameters") {
  const ModelDescription original = gat_description();
  const std::map<std::string, std::string> metadata = description_metadata(original);
  CHECK(metadata.at("model") == "gat");
  CHECK(metadata.at("model.hyperparameter.heads") == "3");
  CHECK(metadata.at("model.hyperparameter.dropout") == "0.25");
  CHECK(metadata.at("model.hyperparameter.projected_dropout") == "on");
  CHECK(metadata.at("features.transform") == "none");
  CHECK(metadata.at("precision") == "fp32");
  const ModelDescription read = description_from_metadata(metadata, "file.ckpt");
  CHECK(description_difference(read, original).empty());
  CHECK(read.hyperparameters == original.hyperparameters);

  Generator first(3), second(3);
  const std::shared_ptr<Model> built = make_model(kGat, first);
  const std::shared_ptr<Model> rebuilt = make_model(read, second);
  CHECK(shapes(*rebuilt) == shapes(*built));
  CHECK(rebuilt->description().feature_transform == graph_io::FeatureTransform::None);

  const std::shared_ptr<Model> linear =
      make_model({.kind = "gcn", .in_features = 9, .classes = 2, .hyperparameters = {{"layers", "1"}}}, first);
  CHECK(shapes(*make_model(linear->description(), second)) == shapes(*linear));
}

TEST_CASE("description_from_metadata names the entry that is missing or malformed") {
  const std::map<std::string, std::string> good = description_metadata(gat_description());
  const auto refused = [&](const std::map<std::string, std::string>& bad, const std::string& expected) {
    CHECK_THROWS_WITH_AS(description_from_metadata(bad, "x.ckpt"), doctest::Contains(expected.c_str()), IoError);
  };
  const auto with = [&](const std::string& key, const std::string& value) {
    std::map<std::string, std::string> bad = good;
    if (value.empty()) {
      bad.erase(key);
    } else {
      bad[key] = value;
    }
    return bad;
  };
  refused(with("model.in_features", ""), "missing model description entry \"model.in_features\"");
  refused(with("model.in_features", "0"), "positive integer");
  refused(with("model.classes", "99999999999"), "positive integer");
  refused(with("features.transform", "standardize"), "row-normalize");
  refused(with("precision", "fp16"), "not one this build knows");
  // The per-layer form of checkpoints written before the registry.
  const std::map<std::string, std::string> layer_list{
      {"model", "gat"},          {"model.in_features", "12"},       {"model.classes", "5"},
      {"model.widths", "4,5"},   {"model.heads", "3,2"},            {"model.activation", "elu"},
      {"model.dropout", "0.25"}, {"model.normalization", "none"},   {"model.projected_dropout", "true"},
      {"features.transform", "none"}, {"precision", "fp32"}};
  CHECK(description_from_metadata(layer_list, "old.ckpt").hyperparameters == gat_description().hyperparameters);
  std::map<std::string, std::string> bad = layer_list;
  bad["model.widths"] = "4,x";
  refused(bad, "\"model.widths\" = \"4,x\"");
  bad["model.widths"] = "4,6";
  refused(bad, "the last layer's width is not model.classes");
  bad = layer_list;
  bad["model.heads"] = "3";
  refused(bad, "one entry per layer");
  bad = layer_list;
  bad["model.dropout"] = "1.5";
  refused(bad, "in [0, 1)");
  bad = layer_list;
  bad["model.projected_dropout"] = "yes";
  refused(bad, "true or false");
  bad = layer_list;
  bad["model.normalization"] = "mean";
  refused(bad, "symmetric, row, none");
  bad = layer_list;
  bad["model.activation"] = "relu";
  refused(bad, "a GAT uses elu, not relu");
  bad = layer_list;
  bad["model"] = "resnet";
  refused(bad, "of a kind this build cannot convert");
}

TEST_CASE("description_difference names the first incompatible field, ignoring regularisation") {
  const ModelDescription a = gat_description();
  ModelDescription b = a;
  b.hyperparameters["dropout"] = "0.5";
  b.hyperparameters["projected_dropout"] = "off";
  CHECK(description_difference(a, b).empty());
  b = a;
  b.in_features = 13;
  CHECK(description_difference(a, b).find("reads features of width 12, this one 13") != std::string::npos);
  b = a;
  b.hyperparameters["heads"] = "4";
  CHECK(description_difference(a, b).find("has heads 3, this one 4 (--heads?)") != std::string::npos);
  b = a;
  b.feature_transform = graph_io::FeatureTransform::RowNormalize;
  CHECK(description_difference(a, b).find("reads none features, this one row-normalize") != std::string::npos);
  b = a;
  b.kind = "gcn";
  CHECK(description_difference(a, b).find("is a gat, this one a gcn") != std::string::npos);
}

TEST_CASE("make_model refuses descriptions this build cannot make, naming the model and the reason") {
  Generator generator(1);
  const auto refused = [&](const ModelDescription& d, const std::string& expected) {
    CHECK_THROWS_WITH_AS(make_model(d, generator), doctest::Contains(expected.c_str()), InvalidArgument);
  };
  ModelDescription d = kGat;
  d.kind = "resnet";
  refused(d, "unknown model \"resnet\" (registered: gcn, gat");
  d = kGat;
  d.hyperparameters["layers"] = "3";
  refused(d, "model gat has no hyperparameter \"layers\" (its hyperparameters: hidden, heads, output_heads");
  d = kGat;
  d.hyperparameters["heads"] = "0";
  refused(d, "model gat: --heads must be in [1, 1024], got \"0\"");
  d = kGat;
  d.hyperparameters["projected_dropout"] = "sometimes";
  refused(d, "--projected-dropout must be on or off");
  d = kGat;
  d.hyperparameters["lr"] = "0.1";
  refused(d, "\"lr\" is a training setting, not part of the model's description");
  d = kGat;
  d.classes = 0;
  refused(d, "classes (0) must be positive");
  refused(ModelDescription{}, "unknown model \"\"");
}
