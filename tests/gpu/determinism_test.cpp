// --deterministic on the GPU: on a graph whose hub row is split into several
// CSR SpMM segments (merged in segment order under ops::set_deterministic)
// and into split HRPB panels (merged in a fixed order when the layout is built
// deterministic), two GCN trainings from the same seed with dropout on give
// the same bits: every epoch's losses and every final weight. Runs with
// atomics are only checked to agree within float tolerance (their last bits
// may or may not differ between runs).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "graph_io/graph.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "graph_io/ogb_writer.hpp"
#include "ops/determinism.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/synthetic_datasets.hpp"
#include "training/experiment.hpp"
#include "training/nn/models.hpp"
#include "training/trainer.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

// A sparse homophilous random graph (about 4 entries a row) plus node 0
// linked to 2000 others: after symmetrising, row 0 of A and of Aᵀ is far
// longer than a segment, and its row panel holds about 3 times the blocks of
// an average panel.
graph_io::Dataset hub_dataset() {
  graph_io::Dataset dataset = symmetric_synthetic(3000, 6000, 24, 21, 4);
  REQUIRE_FALSE(dataset.edges.weight.defined());
  std::vector<int32_t> source = dataset.edges.source.to_vector<int32_t>();
  std::vector<int32_t> target = dataset.edges.target.to_vector<int32_t>();
  for (int32_t node = 1; node <= 2000; ++node) {
    source.push_back(0);
    target.push_back(node);
  }
  const auto count = static_cast<int64_t>(source.size());
  dataset.edges.source = Tensor::from_vector(source, {count});
  dataset.edges.target = Tensor::from_vector(target, {count});
  dataset.name = "hub";
  return dataset;
}

graph_io::Graph hub_graph_on_gpu() {
  graph_io::Graph graph = graph_io::make_graph(hub_dataset(), graph_io::gcn_graph_options(), kGpu);
  REQUIRE(ops::sparse_plan(graph.adjacency.csr)->split_segments > 0);
  REQUIRE(ops::sparse_plan(graph.adjacency.transpose)->split_segments > 0);
  return graph;
}

struct Outcome {
  std::vector<double> losses;  // train and validation loss of every epoch
  std::vector<std::vector<float>> weights;
};

// Five epochs of GCN (hidden 32, dropout 0.5) from `seed`, eagerly.
Outcome train_gcn(const graph_io::Graph& graph, uint64_t seed) {
  Generator generator(seed);
  const std::shared_ptr<Model> model =
      make_model({.kind = "gcn",
                  .in_features = graph.features.size(1),
                  .classes = graph.num_classes,
                  .hyperparameters = {{"hidden", "32"}, {"dropout", "0.5"}}},
                 generator);
  model->to(kGpu);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{});
  TrainerOptions options;
  options.epochs = 5;
  options.restore_best = false;  // compare the weights the last step produced
  options.capture_step = StepCapture::Off;
  const TrainingData data{GraphInput(graph.adjacency), graph.features, graph.labels, graph.train_index,
                          graph.valid_index, graph.test_index};
  Trainer trainer(*model, optimizer, data, options);
  const TrainResult result = trainer.fit();
  Outcome outcome;
  for (const EpochRecord& record : result.history) {
    outcome.losses.push_back(record.train_loss);
    outcome.losses.push_back(record.validation_loss);
  }
  for (const Tensor& parameter : model->parameters()) outcome.weights.push_back(parameter.to_vector<float>());
  return outcome;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void check_bit_identical(const Outcome& first, const Outcome& second) {
  REQUIRE(first.losses.size() == 10);
  CHECK(same_bits(first.losses, second.losses));
  REQUIRE(first.weights.size() == second.weights.size());
  REQUIRE_FALSE(first.weights.empty());
  for (std::size_t k = 0; k < first.weights.size(); ++k) {
    CAPTURE(k);
    CHECK(same_bits(first.weights[k], second.weights[k]));
  }
}

// The first training loss (before any update; same weights and dropout masks)
// differs only by the merge order of split rows or panels. Later epochs are not
// compared: Adam's first steps are ±lr whatever the gradient's size, so a
// tiny gradient may change sign with the order.
void check_close(const Outcome& deterministic, const Outcome& atomic) {
  REQUIRE(deterministic.losses.size() == atomic.losses.size());
  CHECK(std::abs(deterministic.losses[0] - atomic.losses[0]) <= 1e-5 * std::abs(deterministic.losses[0]));
}

// The HRPB layout of the graph with split panels, merged deterministically or with atomics.
graph_io::Graph with_hrpb(graph_io::Graph graph, bool deterministic) {
  graph_io::HrpbOptions options;
  options.load_balance = true;
  // More slots than the graph's 188 panels: one wave, so the run takes as
  // long as the heaviest panel, and splitting the hub's panel shortens it.
  options.concurrent_blocks = 1024;
  options.deterministic = deterministic;
  graph.adjacency.hrpb.reset();
  graph_io::attach_hrpb(graph.adjacency, SpmmFormat::Hrpb, options);
  REQUIRE(graph.adjacency.hrpb);
  REQUIRE(graph.adjacency.hrpb->forward.deterministic == deterministic);
  REQUIRE(graph.adjacency.hrpb->forward.schedule.num_split_panels > 0);
  REQUIRE(graph.adjacency.hrpb->transpose.schedule.num_split_panels > 0);
  return graph;
}

}  // namespace

TEST_CASE("deterministic GCN training on CSR with split hub rows: same seed, same bits; atomics agree") {
  const graph_io::Graph graph = hub_graph_on_gpu();
  Outcome first, second;
  {
    const ops::DeterministicScope deterministic(true);
    first = train_gcn(graph, 5);
    second = train_gcn(graph, 5);
  }
  check_bit_identical(first, second);
  const ops::DeterministicScope atomic(false);
  check_close(first, train_gcn(graph, 5));
}

TEST_CASE("GCN training on a deterministic HRPB with split panels: same seed, same bits; atomic build agrees") {
  const graph_io::Graph csr = hub_graph_on_gpu();
  const graph_io::Graph deterministic = with_hrpb(csr, true);
  const ops::DeterministicScope mode(true);  // for any CSR SpMM beside the HRPB ones
  const Outcome first = train_gcn(deterministic, 9);
  check_bit_identical(first, train_gcn(deterministic, 9));
  check_close(first, train_gcn(with_hrpb(csr, false), 9));
}

TEST_CASE("run_experiment --deterministic on CUDA: two runs give the same loss history bits (csr and hrpb)") {
  TempDir folder;
  graph_io::write_ogb_dataset(hub_dataset(), folder / "hub");
  for (const char* spmm : {"csr", "hrpb"}) {
    CAPTURE(spmm);
    ExperimentOptions options;
    options.dataset = (folder / "hub").string();
    options.device = "cuda";
    options.spmm = spmm;
    options.hyperparameters = {{"epochs", "4"}};
    options.seed = 3;
    options.deterministic = true;
    const ExperimentResult first = run_experiment(options);
    const ExperimentResult second = run_experiment(options);
    CHECK(first.deterministic);
    CHECK_FALSE(ops::deterministic());  // restored
    std::vector<double> first_losses, second_losses;
    for (const EpochRecord& r : first.runs.front().result.history) first_losses.push_back(r.train_loss);
    for (const EpochRecord& r : second.runs.front().result.history) second_losses.push_back(r.train_loss);
    REQUIRE(first_losses.size() == 4);
    CHECK(same_bits(first_losses, second_losses));
    CHECK(first.test_accuracy == second.test_accuracy);
  }
}
