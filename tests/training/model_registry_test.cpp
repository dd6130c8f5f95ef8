// The model registry: the built-in kinds, a kind registered by the program
// (here a two-layer MLP that ignores the graph) training, saved and rebuilt
// from its checkpoint like the built-in ones, and every refusal named.
#include <doctest/doctest.h>

#include "tests/graph_io/temp_files.hpp"
#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"
#include "training/inference.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/nn/linear.hpp"
#include "training/nn/model_registry.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

std::shared_ptr<Sequential> build_mlp(const ModelDescription& d, Generator& generator) {
  auto layers = std::make_shared<Sequential>();
  layers->append(std::make_shared<Dropout>(d.number("dropout"), generator));
  layers->append(std::make_shared<Linear>(d.in_features, d.integer("hidden"), generator));
  layers->append(std::make_shared<Relu>());
  layers->append(std::make_shared<Linear>(d.integer("hidden"), d.classes, generator));
  return layers;
}

ModelEntry mlp_entry(const std::string& name) {
  return {.name = name,
          .about = "a two-layer perceptron that ignores the graph (a baseline)",
          .hyperparameters = {{.name = "hidden",
                               .type = HyperparameterType::Integer,
                               .default_value = "32",
                               .help = "hidden features",
                               .range = ValueRange::positive(),
                               .dataset_defaults = {{"pubmed", "64"}}},
                              {.name = "dropout",
                               .type = HyperparameterType::Number,
                               .default_value = "0.5",
                               .help = "dropout on the input",
                               .role = HyperparameterRole::Regularization,
                               .range = ValueRange::probability()},
                              {.name = "lr",
                               .type = HyperparameterType::Number,
                               .default_value = "0.02",
                               .help = "Adam learning rate",
                               .role = HyperparameterRole::Optimization,
                               .range = ValueRange::positive()}},
          .decayed_parameters = {"layers.1."},
          .build = build_mlp};
}

// Registered at static initialisation, as a user's program (or plugin) does.
const ModelRegistration registration{mlp_entry("test-mlp")};

std::vector<float> logits_of(Model& model, const testing::TinyTask& task) {
  return predict(model, task.data.graph, task.data.features).logits.to_vector<float>();
}

}  // namespace

TEST_CASE("the built-in kinds come first, in order, and a program's own follow") {
  const std::vector<std::string> names = model_names();
  const std::vector<ModelEntry> builtin = builtin_models();
  REQUIRE(names.size() > builtin.size());
  for (std::size_t i = 0; i < builtin.size(); ++i) CHECK(names[i] == builtin[i].name);
  CHECK(names[0] == "gcn");
  CHECK(names[1] == "gat");
  CHECK(std::find(names.begin(), names.end(), "test-mlp") != names.end());
  CHECK(find_model_entry("nothing") == nullptr);
  CHECK_THROWS_WITH_AS(model_entry("nothing"), doctest::Contains("unknown model \"nothing\" (registered: gcn, gat"),
                       InvalidArgument);
}

TEST_CASE("a registered entry holds its own hyperparameters, then the common training ones with its changes") {
  const ModelEntry& mlp = model_entry("test-mlp");
  std::vector<std::string> names;
  for (const Hyperparameter& h : mlp.hyperparameters) names.push_back(h.name);
  CHECK(names == std::vector<std::string>{"hidden", "dropout", "epochs", "lr", "weight_decay", "patience", "monitor"});
  const std::map<std::string, std::string> cora = resolve_hyperparameters(mlp, "cora");
  CHECK(cora.at("hidden") == "32");
  CHECK(cora.at("lr") == "0.02");       // the entry's default
  CHECK(cora.at("epochs") == "200");    // the common one
  CHECK(cora.at("weight_decay") == "5e-04");  // shortest round-trip form
  CHECK(resolve_hyperparameters(mlp, "data/PubMed").at("hidden") == "64");
  CHECK(resolve_hyperparameters(mlp, "cora", {{"hidden", "0008"}}).at("hidden") == "8");  // stored form
  CHECK_THROWS_WITH_AS(resolve_hyperparameters(mlp, "cora", {{"heads", "2"}}),
                       doctest::Contains("model test-mlp has no hyperparameter \"heads\" (its hyperparameters: hidden, "
                                         "dropout, epochs"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(resolve_hyperparameters(mlp, "cora", {{"hidden", "-3"}}),
                       doctest::Contains("model test-mlp: --hidden must be positive, got \"-3\""), InvalidArgument);
  CHECK_THROWS_WITH_AS(resolve_hyperparameters(mlp, "cora", {{"monitor", "best"}}),
                       doctest::Contains("--monitor must be accuracy, loss or loss+accuracy"), InvalidArgument);
}

TEST_CASE("a program's own kind trains, checkpoints and is rebuilt from its checkpoint like a built-in one") {
  const testing::TinyTask task = testing::tiny_task(2);
  testing::TempDir dir;
  Generator generator(5);
  const std::shared_ptr<Model> model =
      make_model({.kind = "test-mlp", .in_features = task.features, .classes = task.classes}, generator);
  CHECK(model->kind() == "test-mlp");
  CHECK(model->description().hyperparameters ==
        std::map<std::string, std::string>{{"hidden", "32"}, {"dropout", "0.5"}});
  CHECK(description_summary(model->description()) ==
        "test-mlp " + std::to_string(task.features) + " -> " + std::to_string(task.classes) +
            " (hidden 32), row-normalize features, fp32");
  // Weight decay on the first Linear only (layers.1.), as the entry says.
  const std::vector<ParameterGroup> groups = model->parameter_groups(5e-4f);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].parameters.size() == 2);
  CHECK(groups[1].weight_decay == 0.0f);
  Adam optimizer(groups, ops::AdamHyperparameters{0.02f});
  TrainerOptions options;
  options.epochs = 5;
  Trainer trainer(*model, optimizer, task.data, options);
  trainer.fit();
  save_checkpoint(dir / "mlp.ckpt", *model, optimizer, trainer.state(), generator);

  const TrainedModel trained = load_trained_model(dir / "mlp.ckpt");
  CHECK(trained.description.kind == "test-mlp");
  CHECK(logits_of(*trained.model, task) == logits_of(*model, task));
  CHECK(embed(*trained.model, task.data.graph, task.data.features).size(1) == 32);
}

TEST_CASE("register_model refuses a duplicate name and malformed entries, naming the entry and the reason") {
  const auto refused = [](ModelEntry entry, const std::string& expected) {
    CHECK_THROWS_WITH_AS(register_model(std::move(entry)), doctest::Contains(expected.c_str()), InvalidArgument);
  };
  refused(mlp_entry("test-mlp"), "register_model: a model named \"test-mlp\" is registered already");
  refused(mlp_entry("gcn"), "a model named \"gcn\" is registered already");
  refused(mlp_entry("Bad Name"), "register_model (\"Bad Name\"): a model name is lowercase letters");
  ModelEntry entry = mlp_entry("test-refused");
  entry.build = nullptr;
  refused(entry, "register_model (\"test-refused\"): the entry has no build function");
  entry = mlp_entry("test-refused");
  entry.hyperparameters.push_back(entry.hyperparameters.front());
  refused(entry, "hyperparameter \"hidden\" is declared twice");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[0].name = "Hidden";
  refused(entry, "hyperparameter name \"Hidden\" is not lowercase letters");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[0].default_value = "0";
  refused(entry, "(default of hidden): --hidden must be positive, got \"0\"");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[0].dataset_defaults = {{"PubMed", "64"}};
  refused(entry, "dataset default for \"PubMed\" (give the lowercase dataset name)");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[0].dataset_defaults = {{"pubmed", "many"}};
  refused(entry, "(default of hidden on pubmed): --hidden must be an integer");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[0].role = HyperparameterRole::Optimization;
  refused(entry, "the Optimization role is that of the common training hyperparameters");
  entry = mlp_entry("test-refused");
  entry.hyperparameters[2].type = HyperparameterType::Integer;
  entry.hyperparameters[2].default_value = "1";
  refused(entry, "hyperparameter \"lr\" changes a common training hyperparameter, which keeps its type and role");
  entry = mlp_entry("test-refused");
  entry.hyperparameters.push_back({.name = "norm", .type = HyperparameterType::Choice, .default_value = "batch"});
  refused(entry, "hyperparameter \"norm\" is a choice without choices");
  CHECK(find_model_entry("test-refused") == nullptr);  // nothing half-registered
}

TEST_CASE("hyperparameter values: stored forms, ranges and flags") {
  CHECK(flag_name({.name = "output_heads"}) == "--output-heads");
  const Hyperparameter number{.name = "lr", .type = HyperparameterType::Number, .range = ValueRange::positive()};
  CHECK(checked_value(number, "5e-4", "") == "5e-04");
  CHECK(checked_value(number, "0.0005", "") == "5e-04");
  CHECK(checked_value(number, "0.005", "") == "0.005");
  CHECK_THROWS_WITH_AS(checked_value(number, "0", "model x"), doctest::Contains("model x: --lr must be positive"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(checked_value(number, "inf", ""), doctest::Contains("--lr must be a number"), InvalidArgument);
  CHECK_THROWS_WITH_AS(checked_value(number, "1e-2x", ""), doctest::Contains("--lr must be a number"),
                       InvalidArgument);
  const Hyperparameter on_off{.name = "flag", .type = HyperparameterType::Switch};
  CHECK(checked_value(on_off, "true", "") == "on");
  CHECK(checked_value(on_off, "off", "") == "off");
  CHECK_THROWS_AS(checked_value(on_off, "1", ""), InvalidArgument);
  CHECK(ValueRange::probability().text() == "in [0, 1)");
  CHECK(ValueRange::unit_interval().text() == "in [0, 1]");
  CHECK(ValueRange::between(1, 64).text() == "in [1, 64]");
  CHECK(ValueRange::non_negative().text() == "non-negative");
  CHECK(ValueRange::probability().contains(0.0));
  CHECK_FALSE(ValueRange::probability().contains(1.0));
  CHECK(dataset_key("/data/PubMed/") == "pubmed");
  CHECK(defaults_text(model_entry("gat").hyperparameters[2]) == "1; 8 on pubmed");
}

TEST_CASE("a refused check names the library function, not a source file an install does not ship") {
  Generator generator(1);
  std::string message;
  try {
    (void)make_model({.kind = "gcn", .in_features = 0, .classes = 3}, generator);
  } catch (const InvalidArgument& error) {
    message = error.what();
  }
  CAPTURE(message);
  CHECK(message.find("in sgnn::training::complete_description]") != std::string::npos);
  CHECK(message.find(".cpp") == std::string::npos);
  CHECK(message.find(".hpp") == std::string::npos);
  CHECK(sgnn::detail::function_name("sgnn::Tensor sgnn::training::SGConv::forward(const sgnn::training::GraphInput&, "
                                    "const sgnn::Tensor&)") == "sgnn::training::SGConv::forward");
  CHECK(sgnn::detail::function_name("std::map<int, int> sgnn::f(int) [with T = int]") == "sgnn::f");
  CHECK(sgnn::detail::function_name("void sgnn::Holder<std::pair<int, int> >::run(int)") ==
        "sgnn::Holder<std::pair<int, int> >::run");
}
