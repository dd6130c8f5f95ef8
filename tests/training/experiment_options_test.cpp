#include <doctest/doctest.h>

#include "examples/training_cli.hpp"
#include "training/experiment.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

// Parses a command line of sgnn_train --model `kind` (train_gcn, train_gat); CLI11 errors propagate.
examples::ProgramOptions parse(const std::string& kind, const std::string& command_line) {
  CLI::App app{"test"};
  examples::ProgramOptions options;
  examples::add_training_flags(app, model_entry(kind), options);
  app.parse(command_line, false);
  return options;
}

}  // namespace

TEST_CASE("registry defaults: GCN, GAT, and GAT on Pubmed (name taken from a path, any case)") {
  const TrainingSettings gcn = training_settings(resolve_hyperparameters(model_entry("gcn"), "cora"));
  CHECK(gcn.epochs == 200);
  CHECK(gcn.learning_rate == 0.01f);
  CHECK(gcn.weight_decay == 5e-4f);
  CHECK(gcn.monitor == Monitor::ValidationAccuracy);
  const std::map<std::string, std::string> gcn_model = resolve_hyperparameters(model_entry("gcn"), "cora");
  CHECK(gcn_model.at("hidden") == "16");
  CHECK(gcn_model.at("dropout") == "0.5");
  const std::map<std::string, std::string> gat_model = resolve_hyperparameters(model_entry("gat"), "citeseer");
  const TrainingSettings gat = training_settings(gat_model);
  CHECK(gat_model.at("hidden") == "8");
  CHECK(gat_model.at("heads") == "8");
  CHECK(gat_model.at("output_heads") == "1");
  CHECK(gat_model.at("dropout") == "0.6");
  CHECK(gat_model.at("projected_dropout") == "on");
  CHECK(gat.learning_rate == 0.005f);
  CHECK(gat.epochs == 1000);
  CHECK(gat.patience == 100);
  CHECK(gat.monitor == Monitor::ValidationLossAndAccuracy);
  const std::map<std::string, std::string> pubmed = resolve_hyperparameters(model_entry("gat"), "/data/PubMed/");
  CHECK(pubmed.at("output_heads") == "8");
  CHECK(training_settings(pubmed).learning_rate == 0.01f);
  CHECK(training_settings(pubmed).weight_decay == 1e-3f);
  CHECK(training_settings(resolve_hyperparameters(model_entry("gcn"), "pubmed")).learning_rate == 0.01f);
}

TEST_CASE("flags override the defaults; unset flags keep them") {
  const auto options = parse("gat", "--dataset cora --lr 0.02 --heads 4 --runs 3 --seed 9 --device cuda:1 "
                                    "--spmm auto --monitor loss --no-row-normalize --quiet --print-json");
  const std::map<std::string, std::string> h =
      resolve_hyperparameters(model_entry("gat"), "cora", options.experiment.hyperparameters);
  CHECK(options.experiment.model == "gat");
  CHECK(training_settings(h).learning_rate == 0.02f);
  CHECK(training_settings(h).monitor == Monitor::ValidationLoss);
  CHECK(h.at("heads") == "4");
  CHECK(h.at("hidden") == "8");
  CHECK(h.at("dropout") == "0.6");
  CHECK(options.experiment.runs == 3);
  CHECK(options.experiment.seed == 9);
  CHECK(options.experiment.device == "cuda:1");
  CHECK(options.experiment.spmm == "auto");
  CHECK(options.experiment.row_normalize_features == false);
  CHECK(options.quiet);
  CHECK(options.print_json);
  CHECK_NOTHROW(validate_options(options.experiment));
}

TEST_CASE("bad flags are rejected by the parser with the flag named") {
  CHECK_THROWS_AS(parse("gcn", "--epochs 10"), CLI::RequiredError);  // no --dataset
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --epochs 0"), doctest::Contains("--epochs must be positive"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --spmm fast"), doctest::Contains("--spmm"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --dropout 1"), doctest::Contains("--dropout must be in [0, 1)"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --lr abc"),
                       doctest::Contains("--lr must be a number, got \"abc\""), CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --lr -0.1"), doctest::Contains("must be positive"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gat", "--dataset cora --projected-dropout maybe"), doctest::Contains("on or off"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse("gat", "--dataset cora --monitor best"),
                       doctest::Contains("accuracy, loss or loss+accuracy"), CLI::ValidationError);
  CHECK_THROWS_AS(parse("gcn", "--dataset cora --heads 8"), CLI::ExtrasError);  // a GAT flag
  CHECK_THROWS_AS(parse("gcn", "--dataset cora --bogus"), CLI::ExtrasError);
  CHECK_THROWS_WITH_AS(parse("gcn", "--dataset cora --resume /nonexistent/x.ckpt"),
                       doctest::Contains("--resume"), CLI::ValidationError);
}

TEST_CASE("options that parse but do not fit together give a clear InvalidArgument") {
  ExperimentOptions options;
  options.dataset = "cora";
  CHECK_NOTHROW(validate_options(options));
  ExperimentOptions bad_device = options;
  bad_device.device = "gpu";
  CHECK_THROWS_AS(validate_options(bad_device), InvalidArgument);
  ExperimentOptions checkpoint_runs = options;
  checkpoint_runs.runs = 2;
  checkpoint_runs.checkpoint = "x.ckpt";
  CHECK_THROWS_WITH_AS(validate_options(checkpoint_runs), doctest::Contains("single run"), InvalidArgument);
  ExperimentOptions no_dataset = options;
  no_dataset.dataset.clear();
  CHECK_THROWS_WITH_AS(validate_options(no_dataset), doctest::Contains("--dataset is required"), InvalidArgument);
  ExperimentOptions unknown_model = options;
  unknown_model.model = "resnet";
  CHECK_THROWS_WITH_AS(validate_options(unknown_model), doctest::Contains("unknown model \"resnet\" (registered: gcn, gat"),
                       InvalidArgument);
  ExperimentOptions gcn_heads = options;
  gcn_heads.hyperparameters = {{"heads", "2"}};
  CHECK_THROWS_WITH_AS(validate_options(gcn_heads), doctest::Contains("model gcn has no hyperparameter \"heads\""),
                       InvalidArgument);
  ExperimentOptions bad_dropout = options;
  bad_dropout.hyperparameters = {{"dropout", "1.5"}};
  CHECK_THROWS_WITH_AS(validate_options(bad_dropout), doctest::Contains("model gcn: --dropout must be in [0, 1)"),
                       InvalidArgument);
  ExperimentOptions bad_lr = options;
  bad_lr.hyperparameters = {{"lr", "-1"}};
  CHECK_THROWS_WITH_AS(validate_options(bad_lr), doctest::Contains("--lr must be positive, got \"-1\""),
                       InvalidArgument);
}

TEST_CASE("the results JSON has the fields bench/compare_pyg.py reads, on one line") {
  ExperimentResult result;
  result.model = "gcn";
  result.dataset = "cora";
  result.device = "cpu";
  result.spmm = "csr";
  result.test_accuracy = 0.815;
  result.test_accuracy_std = 0.005;
  result.epoch_ms_median = 1.5;
  result.train_seconds = 2.0;
  result.peak_device_bytes = 12345;
  result.preprocess_ms = 7.0;
  result.cache_hit = true;
  RunSummary run;
  run.seed = 3;
  EpochRecord record;
  record.epoch = 1;
  record.train_loss = 1.9;
  run.result.history.push_back(record);
  result.runs.push_back(run);
  result.notes.push_back("a \"note\"");
  const std::string json = experiment_json(result, "train_gcn");
  CHECK(json.find('\n') == std::string::npos);
  CHECK(json.front() == '{');
  for (const char* field : {"\"test_accuracy\":0.81499999999999995", "\"test_accuracy_std\":", "\"runs\":1",
                            "\"epoch_ms_median\":1.5", "\"train_seconds\":2", "\"peak_device_bytes\":12345",
                            "\"preprocess_ms\":7", "\"cache_hit\":true", "\"device\":\"cpu\"",
                            "\"dataset\":\"cora\"", "\"model\":\"gcn\"", "\"seed\":3", "\"train_loss\":1.8999999999999999",
                            "\"a \\\"note\\\"\""}) {
    CHECK_MESSAGE(json.find(field) != std::string::npos, field);
  }
  // The hyperparameters, each in its type.
  result.model = "gat";
  result.hyperparameters = resolve_hyperparameters(model_entry("gat"), "cora");
  const std::string gat = experiment_json(result, "train_gat");
  for (const char* field : {"\"heads\":8", "\"epochs\":1000", "\"dropout\":0.60000002384185791",
                            "\"projected_dropout\":true", "\"monitor\":\"loss+accuracy\""}) {
    CHECK_MESSAGE(gat.find(field) != std::string::npos, field);
  }
}

TEST_CASE("mean and population standard deviation") {
  const auto [mean, std] = mean_and_std({0.8, 0.82, 0.84});
  CHECK(mean == doctest::Approx(0.82));
  CHECK(std == doctest::Approx(0.0163299).epsilon(1e-4));
  CHECK(mean_and_std({}).first == 0.0);
}
