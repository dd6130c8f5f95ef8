// The memory estimate (core/memory_estimate.hpp) against the measured peak of
// sparsegnn tensors on the CPU, and the refusal of run_experiment when the
// estimate exceeds the free bytes (made testable here by the override).
#include <doctest/doctest.h>

#include "core/memory.hpp"
#include "core/memory_estimate.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/ogb_writer.hpp"
#include "ops/cast.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "tests/support/testing.hpp"
#include "training/experiment.hpp"
#include "training/memory_estimate_check.hpp"
#include "training/nn/builtin_models.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

graph_io::Dataset synthetic(int64_t nodes, int64_t edges, int64_t features) {
  return testing::symmetric_synthetic(nodes, edges, features, 3, 5);
}

// Sets the free-bytes override for the scope.
class FreeBytes {
 public:
  explicit FreeBytes(int64_t bytes) { memory::set_free_bytes_override(bytes); }
  ~FreeBytes() { memory::set_free_bytes_override(std::nullopt); }
  FreeBytes(const FreeBytes&) = delete;
  FreeBytes& operator=(const FreeBytes&) = delete;
};

// Peak bytes of live CPU tensors while `work` runs, above what was live before.
template <typename Work>
int64_t measured_peak(Work&& work) {
  const int64_t before = memory::usage(Device::cpu()).current_bytes;
  memory::reset_peak(Device::cpu());
  work();
  return memory::usage(Device::cpu()).peak_bytes - before;
}

void check_within_factor_two(int64_t estimate, int64_t measured) {
  CAPTURE(estimate);
  CAPTURE(measured);
  REQUIRE(measured > 0);
  CHECK(static_cast<double>(estimate) >= 0.5 * static_cast<double>(measured));
  CHECK(static_cast<double>(estimate) <= 2.0 * static_cast<double>(measured));
}

}  // namespace

TEST_CASE("the graph and model estimates are within 2x of the measured CPU peak (every built-in model, fp32 and bf16)") {
  const graph_io::Dataset plain = synthetic(3000, 30000, 200);
  graph_io::Dataset with_edge_features = plain;  // for kinds that read them (gine)
  with_edge_features.edge_features = random_tensor({plain.edges.num_edges(), 8}, 4);
  for (const ModelEntry& builtin : builtin_models()) {
    const std::string& kind = builtin.name;
    const ModelEntry& entry = model_entry(kind);
    const graph_io::Dataset& dataset = entry.graph.edge_features ? with_edge_features : plain;
    const int64_t edge_width = dataset.edge_features.defined() ? dataset.edge_features.size(1) : 0;
    for (const Precision precision : {Precision::Fp32, Precision::Bf16}) {
      const std::string label = kind + " " + precision_name(precision);
      CAPTURE(label);
      std::map<std::string, std::string> given;
      if (kind == "gcn") given["hidden"] = "64";
      const std::map<std::string, std::string> h = resolve_hyperparameters(entry, "synthetic", given);
      graph_io::Graph graph;
      Tensor features;
      // The model's features first: on a GPU they are uploaded while the
      // adjacency is built, so both are live beside the build's workspace,
      // which is what the estimate adds up (on the CPU the graph's features
      // are the dataset's own tensor, the same values).
      const int64_t graph_peak = measured_peak([&] {
        features = graph_io::normalize_feature_rows(dataset.features, activation_dtype(precision));
        graph = graph_io::make_graph(dataset, entry.graph, Device::cpu());
      });
      // The estimator given the real entry count (the experiment's check uses an
      // upper bound, up to 2x over for a dataset stored in both directions).
      memory::GraphShape graph_shape = experiment_graph_shape(entry, dataset, false, precision);
      graph_shape.nnz = graph.adjacency.nnz();
      // On the CPU the graph's features, labels and edge list are the dataset's own tensors (no copy).
      const int64_t feature_copy = graph_shape.nodes * graph_shape.features * 4;
      check_within_factor_two(memory::estimate_graph(graph_shape).total_bytes() - feature_copy, graph_peak);

      const ModelDescription description = describe_model(entry, dataset.features.size(1), dataset.num_classes, h,
                                                          graph_io::FeatureTransform::RowNormalize, precision,
                                                          edge_width);
      TrainingData data{GraphInput(graph), features, graph.labels, graph.train_index, graph.valid_index, Tensor()};
      if (graph.edge_features.defined()) {
        data.graph.edge_features = ops::cast(graph.edge_features, activation_dtype(precision));
      }
      const int64_t model_peak = measured_peak([&] {
        Generator generator(1);
        const std::shared_ptr<Model> model = make_model(description, generator);
        Adam optimizer(model->parameter_groups(training_settings(h).weight_decay), ops::AdamHyperparameters{});
        TrainerOptions options;
        options.epochs = 2;
        Trainer trainer(*model, optimizer, data, options);
        trainer.fit();
        int64_t parameters = 0;
        for (const Tensor& parameter : model->parameters()) parameters += parameter.numel();
        CHECK(model_memory(description, {}).value().parameters == parameters);  // the count is exact
      });
      const memory::Estimate model_estimate =
          experiment_model_estimate(description, {graph.num_nodes, graph.adjacency.nnz()});
      MESSAGE(label, ": model estimate ", model_estimate.total_bytes(), " bytes, measured ", model_peak);
      check_within_factor_two(model_estimate.total_bytes(), model_peak);
    }
  }
}

namespace {

ModelDescription gcn_of(const graph_io::Dataset& dataset, int64_t hidden) {
  return describe_model(model_entry("gcn"), dataset.features.size(1), dataset.num_classes,
                        resolve_hyperparameters(model_entry("gcn"), "", {{"hidden", std::to_string(hidden)}}),
                        graph_io::FeatureTransform::RowNormalize, Precision::Fp32);
}

}  // namespace

TEST_CASE("an experiment that does not fit is refused with needed vs free bytes and what would fit") {
  const graph_io::Dataset dataset = synthetic(2000, 20000, 64);
  const ModelDescription gcn = gcn_of(dataset, 256);
  // A refusal is judged on the real entry count (the bound is only a first look).
  memory::GraphShape graph = experiment_graph_shape(model_entry("gcn"), dataset, true);
  graph.nnz = experiment_prepared_entries(model_entry("gcn"), dataset);
  const int64_t needed =
      memory::estimate_training(graph, experiment_model_estimate(gcn, {graph.nodes, graph.nnz})).total_bytes();
  {
    FreeBytes override_free(needed);  // exactly enough
    CHECK_NOTHROW(require_experiment_fits(gcn, dataset, true, Device::cpu()));
  }
  {
    FreeBytes override_free(needed - 1);
    CHECK_THROWS_WITH_AS(require_experiment_fits(gcn, dataset, true, Device::cpu()),
                         doctest::Contains("not enough memory on cpu for gcn on"), OutOfMemoryError);
    try {
      require_experiment_fits(gcn, dataset, true, Device::cpu());
    } catch (const OutOfMemoryError& error) {
      const std::string message = error.what();
      CHECK(message.find("needs about " + memory::mebibytes(needed)) != std::string::npos);
      CHECK(message.find("HRPB layout") != std::string::npos);
      CHECK(message.find("the CSR format instead of HRPB (--spmm csr)") != std::string::npos);
      CHECK(message.find("--hidden 128") != std::string::npos);
      CHECK(message.find("--device cpu") == std::string::npos);  // already on the CPU
    }
  }
  {
    FreeBytes override_free(0);
    CHECK_THROWS_WITH_AS(require_experiment_fits(gcn, dataset, false, Device::cpu()),
                         doctest::Contains("No smaller setting tried would fit"), OutOfMemoryError);
  }
  // Without the override the CPU is never refused (its free memory is not queried).
  CHECK_NOTHROW(require_experiment_fits(gcn, dataset, true, Device::cpu()));
}

TEST_CASE("a dataset stored in both directions is judged on its real entries, not on the 2·edges + nodes bound") {
  const graph_io::Dataset dataset = synthetic(20000, 200000, 16);  // symmetric: both directions stored
  const ModelDescription gcn = gcn_of(dataset, 16);
  const memory::GraphShape bound_graph = experiment_graph_shape(model_entry("gcn"), dataset, false);
  const int64_t bound = memory::prepared_nnz_bound(bound_graph);
  const int64_t bound_needed =
      memory::estimate_training(bound_graph, experiment_model_estimate(gcn, {bound_graph.nodes, bound})).total_bytes();

  const int64_t entries = experiment_prepared_entries(model_entry("gcn"), dataset);
  CHECK(entries == graph_io::make_graph(dataset, graph_io::gcn_graph_options(), Device::cpu()).adjacency.nnz());
  CHECK(entries < bound * 6 / 10);  // the bound is about twice the truth
  memory::GraphShape tight_graph = bound_graph;
  tight_graph.nnz = entries;
  const int64_t tight_needed =
      memory::estimate_training(tight_graph, experiment_model_estimate(gcn, {tight_graph.nodes, entries})).total_bytes();
  REQUIRE(memory::mebibytes(tight_needed) != memory::mebibytes(bound_needed));
  {
    FreeBytes override_free(tight_needed);  // the bound alone would refuse this
    REQUIRE(tight_needed < bound_needed);
    CHECK_NOTHROW(require_experiment_fits(gcn, dataset, false, Device::cpu()));
  }
  {
    FreeBytes override_free(tight_needed - 1);
    std::string message;
    try {
      require_experiment_fits(gcn, dataset, false, Device::cpu());
    } catch (const OutOfMemoryError& error) {
      message = error.what();
    }
    CAPTURE(message);
    CHECK(message.find("needs about " + memory::mebibytes(tight_needed)) != std::string::npos);
    CHECK(message.find(memory::mebibytes(tight_needed - 1) + " are free") != std::string::npos);
    CHECK(message.find("needs about " + memory::mebibytes(bound_needed)) == std::string::npos);
    CHECK(message.find("--hidden 8") != std::string::npos);
  }
}

TEST_CASE("run_experiment refuses before preparing the graph when the estimate does not fit") {
  TempDir folder;
  graph_io::write_ogb_dataset(synthetic(500, 3000, 16), folder / "tiny");
  ExperimentOptions options;
  options.dataset = (folder / "tiny").string();
  options.hyperparameters = {{"epochs", "1"}};
  FreeBytes override_free(1000);
  CHECK_THROWS_WITH_AS(run_experiment(options), doctest::Contains("1 MiB are free"), OutOfMemoryError);
}
