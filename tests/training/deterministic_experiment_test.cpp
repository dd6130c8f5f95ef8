// --deterministic end to end on the CPU: the flag reaches the experiment, the
// process-wide mode (the option's during the run, the previous one after it,
// also when the run throws), the HRPB layout it builds (read back from the
// HRPB cache, whose fingerprint covers the option) and the results JSON. The
// bit-identity itself is a GPU matter: tests/gpu/determinism_test.cpp.
#include <doctest/doctest.h>

#include <filesystem>

#include "examples/training_cli.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "ops/determinism.hpp"
#include "ops/spmm_hrpb.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "training/experiment.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

// The one HRPB cache file in `folder` (next to the adjacency cache file).
std::filesystem::path hrpb_cache_file(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".hrpb") found.push_back(entry.path());
  }
  REQUIRE(found.size() == 1);
  return found.front();
}

}  // namespace

TEST_CASE("--deterministic sets the experiment option for GCN and GAT; it is off by default") {
  for (const std::string kind : {"gcn", "gat"}) {
    for (const bool flag : {false, true}) {
      CLI::App app{"test"};
      examples::ProgramOptions options;
      examples::add_training_flags(app, model_entry(kind), options);
      app.parse(std::string("--dataset cora") + (flag ? " --deterministic" : ""), false);
      CHECK(options.experiment.deterministic == flag);
    }
  }
}

TEST_CASE("run_experiment builds the HRPB layout with the --deterministic setting and records it in the JSON") {
  testing::TempDir folder;
  const std::string dataset = testing::write_symmetric_synthetic(folder.path(), "small", 200, 800, 8, 6);
  const std::filesystem::path cache = folder / "cache";
  for (const bool deterministic : {true, false, true}) {
    CAPTURE(deterministic);
    ExperimentOptions options;
    options.dataset = dataset;
    options.hyperparameters = {{"epochs", "2"}};
    options.spmm = "hrpb";
    options.cache_dir = cache.string();
    options.deterministic = deterministic;
    const ExperimentResult result = run_experiment(options);
    CHECK(result.deterministic == deterministic);
    CHECK(result.runs.front().result.history.size() == 2);
    const std::string json = experiment_json(result, "train_gcn");
    CHECK(json.find(std::string("\"deterministic\":") + (deterministic ? "true" : "false")) != std::string::npos);

    // The layout the run stored loads only under the fingerprint of its own setting.
    const std::filesystem::path file = hrpb_cache_file(cache);
    std::filesystem::path adjacency_file = file;
    adjacency_file.replace_extension();
    graph_io::HrpbOptions hrpb_options;
    hrpb_options.concurrent_blocks = ops::spmm_hrpb_concurrent_blocks(Device::cpu(), 16);  // GCN's hidden width
    std::string why;
    hrpb_options.deterministic = deterministic;
    const std::optional<HrpbAdjacency> stored =
        graph_io::load_hrpb_cache(file, graph_io::hrpb_cache_fingerprint(adjacency_file, hrpb_options), why);
    REQUIRE_MESSAGE(stored.has_value(), why);
    CHECK(stored->forward.deterministic == deterministic);
    CHECK(stored->transpose.deterministic == deterministic);
    hrpb_options.deterministic = !deterministic;
    CHECK_FALSE(
        graph_io::load_hrpb_cache(file, graph_io::hrpb_cache_fingerprint(adjacency_file, hrpb_options), why));
  }
}

TEST_CASE("run_experiment sets the deterministic mode for the run and restores the previous one (GCN and GAT)") {
  testing::TempDir folder;
  const std::string dataset = testing::write_symmetric_synthetic(folder.path(), "small", 200, 800, 8, 6);
  for (const std::string kind : {"gcn", "gat"}) {
    for (const bool previous : {false, true}) {
      for (const bool option : {false, true}) {
        CAPTURE(kind);
        CAPTURE(previous);
        CAPTURE(option);
        ops::set_deterministic(previous);
        ExperimentOptions options;
        options.model = kind;
        options.dataset = dataset;
        options.hyperparameters = {{"epochs", "2"}};
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
