// --deterministic end to end on the CPU: the flag reaches the experiment and
// its JSON, the process-wide mode is the option's during the run and the
// previous one afterwards (also when the run throws). The bit-identity itself
// is a GPU matter: tests/gpu/determinism_test.cpp.
#include <doctest/doctest.h>

#include "examples/training_cli.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/synthetic_dataset.hpp"
#include "ops/determinism.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "training/experiment.hpp"

using namespace sgnn;
using namespace sgnn::training;

TEST_CASE("--deterministic sets the experiment option for GCN and GAT; it is off by default") {
  for (const ModelKind kind : {ModelKind::Gcn, ModelKind::Gat}) {
    for (const bool flag : {false, true}) {
      CLI::App app{"test"};
      examples::ProgramOptions options;
      examples::add_training_flags(app, kind, options);
      app.parse(std::string("--dataset cora") + (flag ? " --deterministic" : ""), false);
      CHECK(options.experiment.deterministic == flag);
    }
  }
}

TEST_CASE("run_experiment sets the deterministic mode for the run, records it, and restores the previous mode") {
  testing::TempDir folder;
  graph_io::SyntheticOptions synthetic;
  synthetic.num_nodes = 200;
  synthetic.num_edges = 800;
  synthetic.symmetric = true;
  synthetic.num_features = 8;
  synthetic.seed = 6;
  graph_io::write_ogb_dataset(graph_io::generate_synthetic_dataset(synthetic), folder / "small");
  for (const ModelKind kind : {ModelKind::Gcn, ModelKind::Gat}) {
    for (const bool previous : {false, true}) {
      for (const bool option : {false, true}) {
        CAPTURE(model_name(kind));
        CAPTURE(previous);
        CAPTURE(option);
        ops::set_deterministic(previous);
        ExperimentOptions options;
        options.model = kind;
        options.dataset = (folder / "small").string();
        options.epochs = 2;
        options.deterministic = option;
        int64_t epochs_seen = 0;
        ExperimentHooks hooks;
        hooks.on_epoch = [&](int64_t, int64_t, const EpochRecord&) {
          ++epochs_seen;
          CHECK(ops::deterministic() == option);
        };
        const ExperimentResult result = run_experiment(options, hooks);
        CHECK(epochs_seen == 2);
        CHECK(result.deterministic == option);
        CHECK(ops::deterministic() == previous);
        const std::string json = experiment_json(result, "train_gcn");
        CHECK(json.find(std::string("\"deterministic\":") + (option ? "true" : "false")) != std::string::npos);
      }
    }
  }
  ops::set_deterministic(false);
}

TEST_CASE("a run that fails restores the previous deterministic mode") {
  ops::set_deterministic(false);
  ExperimentOptions options;
  options.dataset = "/nonexistent/dataset/folder";
  options.deterministic = true;
  CHECK_THROWS_AS(run_experiment(options), Error);
  CHECK_FALSE(ops::deterministic());
}
