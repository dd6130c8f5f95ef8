#include <doctest/doctest.h>

#include "examples/training_cli.hpp"
#include "training/experiment.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

// Parses a command line of train_gcn / train_gat; CLI11 errors propagate.
examples::ProgramOptions parse(ModelKind kind, const std::string& command_line) {
  CLI::App app{"test"};
  examples::ProgramOptions options;
  examples::add_training_flags(app, kind, options);
  app.parse(command_line, false);
  return options;
}

}  // namespace

TEST_CASE("paper defaults: GCN, GAT, and GAT on Pubmed (name taken from a path, any case)") {
  const Hyperparameters gcn = paper_defaults(ModelKind::Gcn, "cora");
  CHECK(gcn.epochs == 200);
  CHECK(gcn.hidden == 16);
  CHECK(gcn.dropout == 0.5f);
  CHECK(gcn.learning_rate == 0.01f);
  CHECK(gcn.weight_decay == 5e-4f);
  const Hyperparameters gat = paper_defaults(ModelKind::Gat, "citeseer");
  CHECK(gat.hidden == 8);
  CHECK(gat.heads == 8);
  CHECK(gat.output_heads == 1);
  CHECK(gat.dropout == 0.6f);
  CHECK(gat.learning_rate == 0.005f);
  CHECK(gat.epochs == 1000);
  CHECK(gat.patience == 100);
  CHECK(gat.monitor == Monitor::ValidationLossAndAccuracy);
  CHECK(gcn.monitor == Monitor::ValidationAccuracy);
  CHECK(gat.projected_dropout);
  const Hyperparameters pubmed = paper_defaults(ModelKind::Gat, "/data/PubMed/");
  CHECK(pubmed.output_heads == 8);
  CHECK(pubmed.learning_rate == 0.01f);
  CHECK(pubmed.weight_decay == 1e-3f);
  CHECK(paper_defaults(ModelKind::Gcn, "pubmed").learning_rate == 0.01f);
}

TEST_CASE("flags override the defaults; unset flags keep them") {
  const auto options = parse(ModelKind::Gat, "--dataset cora --lr 0.02 --heads 4 --runs 3 --seed 9 --device cuda:1 "
                                             "--spmm auto --monitor loss --no-row-normalize --quiet --print-json");
  const Hyperparameters h = resolve_hyperparameters(options.experiment, "cora");
  CHECK(h.learning_rate == 0.02f);
  CHECK(h.heads == 4);
  CHECK(h.hidden == 8);
  CHECK(h.dropout == 0.6f);
  CHECK(options.experiment.runs == 3);
  CHECK(options.experiment.seed == 9);
  CHECK(options.experiment.device == "cuda:1");
  CHECK(options.experiment.spmm == "auto");
  CHECK(options.experiment.monitor == Monitor::ValidationLoss);
  CHECK_FALSE(options.experiment.row_normalize_features);
  CHECK(options.quiet);
  CHECK(options.print_json);
  CHECK_NOTHROW(validate_options(options.experiment));
}

TEST_CASE("bad flags are rejected by the parser with the flag named") {
  CHECK_THROWS_AS(parse(ModelKind::Gcn, "--epochs 10"), CLI::RequiredError);  // no --dataset
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --epochs 0"), doctest::Contains("--epochs"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --spmm fast"), doctest::Contains("--spmm"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --dropout 1"), doctest::Contains("--dropout"),
                       CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --lr abc"),
                       doctest::Contains("expected a number, got \"abc\""), CLI::ValidationError);
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --lr -0.1"), doctest::Contains("must be positive"),
                       CLI::ValidationError);
  CHECK_THROWS_AS(parse(ModelKind::Gcn, "--dataset cora --heads 8"), CLI::ExtrasError);  // GAT only
  CHECK_THROWS_AS(parse(ModelKind::Gcn, "--dataset cora --bogus"), CLI::ExtrasError);
  CHECK_THROWS_WITH_AS(parse(ModelKind::Gcn, "--dataset cora --resume /nonexistent/x.ckpt"),
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
  ExperimentOptions gcn_heads = options;
  gcn_heads.heads = 2;
  CHECK_THROWS_WITH_AS(validate_options(gcn_heads), doctest::Contains("GAT only"), InvalidArgument);
  ExperimentOptions bad_dropout = options;
  bad_dropout.dropout = 1.5f;
  CHECK_THROWS_WITH_AS(resolve_hyperparameters(bad_dropout, "cora"), doctest::Contains("--dropout"),
                       InvalidArgument);
  ExperimentOptions bad_lr = options;
  bad_lr.learning_rate = -1.0f;
  CHECK_THROWS_WITH_AS(resolve_hyperparameters(bad_lr, "cora"), doctest::Contains("--lr"), InvalidArgument);
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
}

TEST_CASE("mean and population standard deviation") {
  const auto [mean, std] = mean_and_std({0.8, 0.82, 0.84});
  CHECK(mean == doctest::Approx(0.82));
  CHECK(std == doctest::Approx(0.0163299).epsilon(1e-4));
  CHECK(mean_and_std({}).first == 0.0);
}
