// --check-numerics end to end: the flag reaches the experiment, GCN and GAT
// train under the check without a false alarm, and the mode is restored.
#include <doctest/doctest.h>

#include "examples/training_cli.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "training/experiment.hpp"
#include "training/numerics_check.hpp"

using namespace sgnn;
using namespace sgnn::training;

TEST_CASE("--check-numerics sets the experiment option; it is off by default") {
  for (const bool flag : {false, true}) {
    CLI::App app{"test"};
    examples::ProgramOptions options;
    examples::add_training_flags(app, model_entry("gat"), options);
    app.parse(std::string("--dataset cora") + (flag ? " --check-numerics" : ""), false);
    CHECK(options.experiment.check_numerics == flag);
  }
}

TEST_CASE("GCN and GAT train under the numerics check without a false alarm, and the mode is restored") {
  testing::TempDir folder;
  const std::string dataset = testing::write_symmetric_synthetic(folder.path(), "small", 300, 1500, 12, 4);
  for (const std::string kind : {"gcn", "gat"}) {
    CAPTURE(kind);
    ExperimentOptions options;
    options.model = kind;
    options.dataset = dataset;
    options.hyperparameters = {{"epochs", "3"}};
    options.check_numerics = true;
    const ExperimentResult result = run_experiment(options);
    CHECK(result.runs.front().result.history.size() == 3);
    CHECK_FALSE(check_numerics());
  }
}
