// A mini-batch run's checkpoint (training/block_checkpoint.hpp): sgnn_predict's
// run on it gives the run's own predictions, for every built-in block model;
// and every file or option it cannot serve is refused with the reason.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <iterator>

#include "cora_minibatch.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "training/block_checkpoint.hpp"
#include "training/checkpoint.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/minibatch_sage.hpp"
#include "training/prediction_run.hpp"

namespace {

using namespace sgnn;

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

training::MinibatchOptions short_run(const std::string& model, const sgnn::testing::TempDir& dir) {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.model = model;
  options.epochs = 2;
  options.hidden = 16;
  if (model == "gat") {
    options.hidden = 4;
    options.heads = 2;
  }
  options.checkpoint = (dir / (model + ".ckpt")).string();
  options.predictions = (dir / (model + "-training.csv")).string();
  return options;
}

}  // namespace

TEST_CASE("sgnn_predict on a mini-batch checkpoint writes the training run's predictions (sage, gcn, gat)") {
  const sgnn::testing::TempDir dir;
  for (const std::string model : {"sage", "gcn", "gat"}) {
    CAPTURE(model);
    const training::MinibatchOptions options = short_run(model, dir);
    const training::MinibatchResult result = training::run_minibatch_experiment(options);
    CHECK(result.checkpoint == options.checkpoint);
    CHECK(training::minibatch_json(result, "test").find("\"checkpoint\":\"" + options.checkpoint + "\"") !=
          std::string::npos);
    training::PredictionOptions predict;
    predict.checkpoint = options.checkpoint;
    predict.dataset = options.dataset;
    predict.predictions = (dir / (model + "-predicted.csv")).string();
    const training::PredictionReport report = training::run_prediction(predict);
    CHECK(report.summary.starts_with(model + " (mini-batch) 1433 -> "));
    CHECK(report.epochs == 2);
    CHECK(report.parameters_epoch == result.fit.best_epoch);
    CHECK(report.written == 2708);
    REQUIRE(report.test_accuracy.has_value());
    CHECK(*report.test_accuracy == doctest::Approx(result.test_accuracy).epsilon(1e-12));
    // The same layer-wise inference from the same parameters: the same file, byte for byte.
    CHECK(file_text(predict.predictions) == file_text(options.predictions));
    // A node list: those nodes' lines, in the list's order; still scored on the test split.
    const std::filesystem::path list = dir / "nodes.txt";
    std::ofstream(list) << "5\n3\n2000\n";
    predict.nodes = list.string();
    predict.predictions = (dir / (model + "-listed.csv")).string();
    const training::PredictionReport listed = training::run_prediction(predict);
    CHECK(listed.written == 3);
    REQUIRE(listed.test_accuracy.has_value());
    CHECK(*listed.test_accuracy == doctest::Approx(result.test_accuracy).epsilon(1e-12));
    const std::vector<std::string> all = lines_of(file_text(options.predictions));
    CHECK(lines_of(file_text(predict.predictions)) == std::vector<std::string>{all[0], all[6], all[4], all[2001]});
  }
}

TEST_CASE("a mini-batch checkpoint: what it cannot serve is refused, naming the reason") {
  const sgnn::testing::TempDir dir;
  training::MinibatchOptions options = short_run("sage", dir);
  training::run_minibatch_experiment(options);
  training::PredictionOptions predict;
  predict.checkpoint = options.checkpoint;
  predict.dataset = options.dataset;
  predict.predictions = (dir / "p.csv").string();

  SUBCASE("embeddings and the last epoch's parameters") {
    predict.embeddings = (dir / "e.csv").string();
    CHECK_THROWS_WITH_AS(training::run_prediction(predict), doctest::Contains("gives predictions only"),
                         InvalidArgument);
    predict.embeddings.clear();
    predict.parameters = training::CheckpointParameters::Last;
    CHECK_THROWS_WITH_AS(training::run_prediction(predict), doctest::Contains("holds one set of parameters"),
                         InvalidArgument);
    CHECK_FALSE(std::filesystem::exists(dir / "p.csv"));
  }
  SUBCASE("the full-graph loader names the one that reads it") {
    CHECK_THROWS_WITH_AS(training::load_trained_model(options.checkpoint),
                         doctest::Contains("load_block_checkpoint"), IoError);
  }
  SUBCASE("a file whose parameters or kind do not match") {
    const graph_io::SectionFile contents = graph_io::read_section_file(options.checkpoint, "checkpoint", 2);
    const auto refused = [&](const std::function<void(graph_io::SectionFile&)>& alter, const char* reason) {
      graph_io::SectionFile altered = contents;
      alter(altered);
      const std::filesystem::path file = dir / "altered.ckpt";
      graph_io::write_section_file(file, altered);
      predict.checkpoint = file.string();
      CHECK_THROWS_WITH_AS(training::run_prediction(predict), doctest::Contains(reason), IoError);
    };
    refused([](graph_io::SectionFile& file) { file.sections.pop_back(); }, "parameters, the model it describes");
    refused([](graph_io::SectionFile& file) { file.metadata["model"] = "appnp"; }, "describes no model this build makes");
    refused([](graph_io::SectionFile& file) { file.metadata["model.hyperparameter.hidden"] = "17"; },
            "the model it describes has [1433, 17]");
    refused([](graph_io::SectionFile& file) { file.metadata["minibatch.epochs"] = "two"; }, "malformed minibatch.epochs");
    CHECK_FALSE(std::filesystem::exists(dir / "p.csv"));
  }
  SUBCASE("a model of a factory, and a missing folder, before training") {
    options.checkpoint = (dir / "factory.ckpt").string();
    const training::BlockModelFactory factory = [](const training::BlockModelConfig& config, Generator& generator) {
      return std::make_unique<training::SageModel>(config, generator, training::SAGEAggregator::Mean);
    };
    CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(options, factory),
                         doctest::Contains("cannot be rebuilt from a file"), InvalidArgument);
    options.checkpoint = (dir / "missing" / "x.ckpt").string();
    CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(options), doctest::Contains("--checkpoint"), IoError);
    options.checkpoint = options.predictions;
    CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(options), doctest::Contains("name the same file"),
                         InvalidArgument);
    CHECK_FALSE(std::filesystem::exists(dir / "factory.ckpt"));
  }
}
