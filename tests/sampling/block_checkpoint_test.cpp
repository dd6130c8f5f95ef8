// A mini-batch run's checkpoint (training/block_checkpoint.hpp): sgnn_predict's
// run on it gives the run's own predictions, for every built-in block model;
// and every file or option it cannot serve is refused with the reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>

#include "cora_minibatch.hpp"
#include "fuzz/minibatch_checkpoint_fixture.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/checkpoint_edits.hpp"
#include "training/block_checkpoint.hpp"
#include "training/checkpoint.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/minibatch_sage.hpp"
#include "training/prediction_run.hpp"

namespace {

using namespace sgnn;

std::string file_text(const std::filesystem::path& path) {
  std::string bytes(static_cast<std::size_t>(std::filesystem::file_size(path)), '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(in.gcount() == static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// `contents` changed by `alter`, written to `file`; returns the file.
std::filesystem::path write_altered(const graph_io::SectionFile& contents,
                                    const std::function<void(graph_io::SectionFile&)>& alter,
                                    const std::filesystem::path& file) {
  graph_io::SectionFile altered = contents;
  alter(altered);
  graph_io::write_section_file(file, altered);
  return file;
}

// The file's sections whose names start with `prefix`, by name.
std::map<std::string, std::string> sections_bytes(const std::filesystem::path& file, const std::string& prefix) {
  const graph_io::SectionFile contents = graph_io::read_section_file(file, "checkpoint", 2);
  std::map<std::string, std::string> bytes;
  for (const auto& [name, tensor] : contents.sections) {
    if (!name.starts_with(prefix)) continue;
    const auto* data = static_cast<const char*>(tensor.raw_data());
    bytes[name] = std::string(data, data + tensor.nbytes());
  }
  return bytes;
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
      predict.checkpoint = write_altered(contents, alter, dir / "altered.ckpt").string();
      CHECK_THROWS_WITH_AS(training::run_prediction(predict), doctest::Contains(reason), IoError);
    };
    refused(
        [](graph_io::SectionFile& file) {
          file.sections.erase(std::find_if(file.sections.begin(), file.sections.end(),
                                           [](const auto& section) { return section.first.starts_with("param."); }));
        },
        "parameters, the model it describes");
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

TEST_CASE("a mini-batch run resumed from its checkpoint ends as the uninterrupted run did: parameters, history and "
          "predictions (sage, gat)") {
  const sgnn::testing::TempDir dir;
  for (const std::string model : {"sage", "gat"}) {
    CAPTURE(model);
    training::MinibatchOptions whole = short_run(model, dir);  // dropout, so the generator's state matters too
    whole.epochs = 4;
    whole.eval_every = 2;  // epoch 3 is not evaluated: the best epoch is kept across the resume
    whole.checkpoint = (dir / (model + "-whole.ckpt")).string();
    whole.predictions = (dir / (model + "-whole.csv")).string();
    const training::MinibatchResult uninterrupted = training::run_minibatch_experiment(whole);

    training::MinibatchOptions first = whole;
    first.epochs = 2;
    first.checkpoint = (dir / (model + "-first.ckpt")).string();
    first.predictions.clear();
    (void)training::run_minibatch_experiment(first);
    training::MinibatchOptions rest = whole;
    rest.resume = first.checkpoint;
    rest.checkpoint = (dir / (model + "-resumed.ckpt")).string();
    rest.predictions = (dir / (model + "-resumed.csv")).string();
    std::vector<std::string> notes;
    training::MinibatchHooks hooks;
    hooks.on_note = [&notes](const std::string& text) { notes.push_back(text); };
    const training::MinibatchResult resumed = training::run_minibatch_experiment(rest, hooks);

    CHECK(std::find(notes.begin(), notes.end(), "resumed from " + first.checkpoint + " after epoch 2") != notes.end());
    CHECK(notes.size() == 1);
    REQUIRE(resumed.fit.history.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
      CAPTURE(i);
      const training::MinibatchEpochRecord& a = uninterrupted.fit.history[i];
      const training::MinibatchEpochRecord& b = resumed.fit.history[i];
      CHECK(b.epoch == a.epoch);
      CHECK(b.train_loss == a.train_loss);
      CHECK(b.sampled_edges == a.sampled_edges);
      CHECK(b.evaluated == a.evaluated);
      CHECK(b.evaluation.validation.accuracy == a.evaluation.validation.accuracy);
      CHECK(b.evaluation.test.loss == a.evaluation.test.loss);
    }
    CHECK(resumed.fit.best_epoch == uninterrupted.fit.best_epoch);
    CHECK(resumed.test_accuracy == uninterrupted.test_accuracy);
    CHECK(file_text(rest.predictions) == file_text(whole.predictions));
    // The files: the best and the last parameters and the optimizer's state, byte for byte.
    for (const char* prefix : {"param.", "last.", "optimizer.", "generator"}) {
      CAPTURE(prefix);
      const auto expected = sections_bytes(whole.checkpoint, prefix);
      CHECK_FALSE(expected.empty());
      CHECK(sections_bytes(rest.checkpoint, prefix) == expected);
    }
  }
}

TEST_CASE("resuming a mini-batch run refuses what it cannot continue, naming why, before training") {
  const sgnn::testing::TempDir dir;
  training::MinibatchOptions options = short_run("sage", dir);
  options.predictions.clear();
  (void)training::run_minibatch_experiment(options);
  training::MinibatchOptions again = options;
  again.resume = options.checkpoint;
  again.checkpoint = (dir / "again.ckpt").string();
  const auto refused = [&](const training::MinibatchOptions& run, const char* reason) {
    CHECK_THROWS_WITH(training::run_minibatch_experiment(run), doctest::Contains(reason));
    CHECK_FALSE(std::filesystem::exists(run.checkpoint));
  };
  SUBCASE("another model, fewer epochs than done, a missing file") {
    training::MinibatchOptions wider = again;
    wider.hidden = 17;
    refused(wider, "the checkpoint's model is not this run's");
    training::MinibatchOptions fewer = again;
    fewer.epochs = 1;
    refused(fewer, "the checkpoint has 2 epochs done, more than --epochs 1");
    // As many epochs as done: nothing to train, said so, and no file written.
    std::vector<std::string> notes;
    training::MinibatchHooks hooks;
    hooks.on_note = [&notes](const std::string& text) { notes.push_back(text); };
    const training::MinibatchResult done = training::run_minibatch_experiment(again, hooks);
    CHECK(done.fit.history.size() == 2);
    CHECK(done.checkpoint.empty());
    CHECK_FALSE(std::filesystem::exists(again.checkpoint));
    REQUIRE(notes.size() == 2);
    CHECK(notes[1] == "--epochs 2 are done already: nothing trained, no checkpoint written; raise --epochs to train on");
    training::MinibatchOptions missing = again;
    missing.resume = (dir / "none.ckpt").string();
    refused(missing, "no such file");
    const training::BlockModelFactory factory = [](const training::BlockModelConfig& config, Generator& generator) {
      return std::make_unique<training::SageModel>(config, generator, training::SAGEAggregator::Mean);
    };
    training::MinibatchOptions made = again;
    made.checkpoint.clear();
    CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(made, factory),
                         doctest::Contains("--resume: a model of a BlockModelFactory cannot be rebuilt"),
                         InvalidArgument);
  }
  SUBCASE("files without the state, damaged, or of full-graph training") {
    const graph_io::SectionFile contents = graph_io::read_section_file(options.checkpoint, "checkpoint", 2);
    const auto refused_file = [&](const std::function<void(graph_io::SectionFile&)>& alter, const char* reason) {
      training::MinibatchOptions run = again;
      run.resume = write_altered(contents, alter, dir / "altered.ckpt").string();
      CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(run), doctest::Contains(reason), IoError);
      CHECK_FALSE(std::filesystem::exists(run.checkpoint));
    };
    const auto without = [](const std::string& name) {
      return [name](graph_io::SectionFile& file) {
        std::erase_if(file.sections, [&name](const auto& section) { return section.first == name; });
      };
    };
    refused_file(without("minibatch.history"), "holds no training state");
    const auto first_last = std::find_if(contents.sections.begin(), contents.sections.end(),
                                         [](const auto& section) { return section.first.starts_with("last."); });
    REQUIRE(first_last != contents.sections.end());
    refused_file(without(first_last->first), ("missing entry \"" + first_last->first + "\"").c_str());
    refused_file(without("generator"), "missing entry \"generator\"");
    refused_file(
        [](graph_io::SectionFile& file) {
          for (auto& [name, tensor] : file.sections) {
            if (name == "minibatch.history") tensor = tensor.narrow_rows(0, tensor.numel() - 1);
          }
        },
        "entry \"minibatch.history\" malformed");
    refused_file([](graph_io::SectionFile& file) { file.metadata.erase("training"); }, "holds a full-graph model");
  }
}

TEST_CASE("MinibatchTrainer records each run_epoch in state(), and a resume file whose history counts are not whole "
          "numbers is refused, changing nothing") {
  sgnn::fuzz::MinibatchCheckpointFixture run;  // the fuzz target's mini-batch run: 4-node ring, eval every 2
  (void)run.trainer.run_epoch();
  (void)run.trainer.run_epoch();
  const training::MinibatchTrainerState state = run.trainer.state();
  CHECK(state.epoch == 2);
  REQUIRE(state.history.size() == 2);
  CHECK(state.history[1].epoch == 2);
  CHECK(state.best_epoch == 1);  // epoch 1 evaluated, epoch 2 not
  CHECK(state.best_parameters.size() == run.model.parameters().size());
  const sgnn::testing::TempDir dir;
  const std::filesystem::path good = dir / "good.ckpt";
  run.save(good);
  const graph_io::SectionFile contents = graph_io::read_section_file(good, "checkpoint", 2);
  sgnn::fuzz::MinibatchCheckpointFixture resumed;
  resumed.resume(contents);
  CHECK(resumed.trainer.epochs_done() == 2);

  for (const double count : sgnn::testing::kNotWholeCounts) {
    CAPTURE(count);
    // The second record's epoch.
    const graph_io::SectionFile bad = sgnn::testing::with_int64_bits(contents, "minibatch.history", 21, count);
    sgnn::fuzz::MinibatchCheckpointFixture other;
    const std::vector<float> before = other.model.parameters().front().to_vector<float>();
    CHECK_THROWS_WITH_AS(other.resume(bad), doctest::Contains("\"minibatch.history\" malformed: count"), IoError);
    CHECK(other.model.parameters().front().to_vector<float>() == before);
    CHECK(other.trainer.epochs_done() == 0);
  }
}
