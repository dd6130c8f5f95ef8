// GINEConv against a float64 reference and finite differences, its
// refusals, and the gine model on a generated graph whose labels only its
// edge features carry: GINE learns them, GCN (which reads no edge
// features) stays at chance.
#include <doctest/doctest.h>

#include <algorithm>

#include "graph_io/generators/edge_feature_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "ops/cast.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"
#include "tests/training/dense_reference.hpp"
#include "training/experiment.hpp"
#include "training/nn/gine_conv.hpp"
#include "training/nn/linear.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

void randomize_parameters(Module& module, uint64_t seed) {
  for (Tensor p : module.parameters()) copy_into(p, random_tensor(p.shape(), seed++, -0.5, 0.5));
}

Tensor named(const Module& module, const std::string& name) {
  for (const auto& [key, value] : module.named_parameters())
    if (key == name) return value;
  FAIL("no parameter " << name);
  return Tensor();
}

// nn((1 + ε) x_i + Σ_{entries k = (j -> i)} ReLU(x_j + W_e e_k + b_e)) with nn a Linear, in float64.
std::vector<double> reference(const GINEConv& conv, const Adjacency& adjacency, const Tensor& x,
                              const Tensor& edge_features) {
  const Matrix xs = to_matrix(x);
  Matrix edges = to_matrix(edge_features);
  if (conv.projects_edges()) {
    edges = multiply(edges, to_matrix(named(conv, "edge_projection.weight")));
    const std::vector<double> bias = to_double(named(conv, "edge_projection.bias"));
    for (auto& row : edges)
      for (std::size_t c = 0; c < row.size(); ++c) row[c] += bias[c];
  }
  const double eps = to_double(conv.eps())[0];
  Matrix h(xs.size(), std::vector<double>(xs[0].size(), 0.0));
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t c = 0; c < xs[i].size(); ++c) h[i][c] = (1.0 + eps) * xs[i][c];
  const EdgeCoordinates coordinates = edge_coordinates(adjacency);
  for (std::size_t k = 0; k < coordinates.row.size(); ++k) {
    const auto i = static_cast<std::size_t>(coordinates.row[k]);
    const auto j = static_cast<std::size_t>(coordinates.column[k]);
    for (std::size_t c = 0; c < h[i].size(); ++c) h[i][c] += std::max(0.0, xs[j][c] + edges[k][c]);
  }
  Matrix out = multiply(h, to_matrix(named(conv, "nn.weight")));
  const std::vector<double> bias = to_double(named(conv, "nn.bias"));
  for (auto& row : out)
    for (std::size_t c = 0; c < row.size(); ++c) row[c] += bias[c];
  return flatten(out);
}

}  // namespace

TEST_CASE("GINEConv computes nn((1 + eps) x_i + sum_j ReLU(x_j + W_e e_ji)), projected or not") {
  const Adjacency adjacency = random_graph(11, 40, 3);
  for (const int64_t edge_width : {5, 4}) {  // 5: W_e projects to x's 4 columns; 4: added as they are
    CAPTURE(edge_width);
    Generator generator(1);
    GINEConv conv(std::make_shared<Linear>(4, 3, generator), 4, edge_width, generator);
    CHECK(conv.projects_edges() == (edge_width != 4));
    randomize_parameters(conv, 10);
    REQUIRE(to_double(conv.eps())[0] != 0.0);
    GraphInput graph{adjacency};
    graph.edge_features = random_tensor({adjacency.nnz(), edge_width}, 20);
    const Tensor x = random_tensor({11, 4}, 21);
    const Tensor y = conv.forward(graph, x);
    CHECK(y.shape() == Shape{11, 3});
    CHECK(relative_error(y, reference(conv, adjacency, x, graph.edge_features)) < 1e-5);
  }
}

TEST_CASE("GINEConv gradients match finite differences (eps, W_e, the MLP, the input)") {
  const Adjacency adjacency = random_graph(8, 25, 5);
  Generator generator(2);
  GINEConv conv(std::make_shared<Linear>(3, 2, generator), 3, 6, generator);
  randomize_parameters(conv, 30);
  GraphInput graph{adjacency};
  graph.edge_features = random_tensor({adjacency.nnz(), 6}, 31);
  Tensor x = random_tensor({8, 3}, 32).set_requires_grad(true);
  std::vector<Tensor> inputs = conv.parameters();
  REQUIRE(inputs.size() == 5);  // eps, nn's weight and bias, W_e and its bias
  inputs.push_back(x);
  const double error =
      gradient_error([&](const std::vector<Tensor>&) { return conv.forward(graph, x); }, inputs, 1e-3);
  CHECK(error < 2e-2);
}

TEST_CASE("GINEConv with a fixed eps keeps it as a buffer; bfloat16 input follows the float32 result") {
  const Adjacency adjacency = random_graph(9, 30, 7);
  Generator generator(3);
  GINEOptions options;
  options.eps = 0.25f;
  options.train_eps = false;
  GINEConv conv(std::make_shared<Linear>(4, 4, generator), 4, 2, generator, options);
  CHECK(conv.parameters().size() == 4);  // nn and W_e only
  CHECK(conv.named_buffers().front().first == "eps");
  GraphInput graph{adjacency};
  graph.edge_features = random_tensor({adjacency.nnz(), 2}, 40);
  const Tensor x = random_tensor({9, 4}, 41);
  const Tensor reference_output = conv.forward(graph, x);
  conv.set_precision(Precision::Bf16);
  const Tensor bf16 = conv.forward(graph, ops::cast(x, DType::BFloat16));  // float32 edge features cast inside
  CHECK(bf16.dtype() == DType::BFloat16);
  CHECK(relative_error(ops::cast(bf16, DType::Float32), to_double(reference_output)) < 3e-2);
}

TEST_CASE("GINEConv refuses a graph without edge features or with edge features of another shape") {
  const Adjacency adjacency = random_graph(6, 12, 9);
  Generator generator(4);
  GINEConv conv(std::make_shared<Linear>(3, 2, generator), 3, 5, generator);
  GraphInput graph{adjacency};
  const Tensor x = random_tensor({6, 3}, 50);
  CHECK_THROWS_WITH_AS(conv.forward(graph, x), doctest::Contains("carries no edge features"), InvalidArgument);
  graph.edge_features = random_tensor({adjacency.nnz(), 4}, 51);
  CHECK_THROWS_WITH_AS(conv.forward(graph, x), doctest::Contains("expected [nnz = "), InvalidArgument);
  graph.edge_features = random_tensor({adjacency.nnz() + 1, 5}, 52);
  CHECK_THROWS_AS(conv.forward(graph, x), InvalidArgument);
  CHECK_THROWS_AS(GINEConv(std::make_shared<Linear>(3, 2, generator), 3, 0, generator), InvalidArgument);
}

TEST_CASE("gine learns labels that only the edge features carry; gcn, which reads none, stays at chance") {
  TempDir dir;
  graph_io::EdgeFeatureOptions generated;
  generated.num_nodes = 2000;
  generated.seed = 1;
  graph_io::write_ogb_dataset(graph_io::generate_edge_feature_dataset(generated), dir / "edge-features");
  ExperimentOptions options;
  options.dataset = (dir / "edge-features").string();
  options.seed = 0;
  options.model = "gine";
  options.hyperparameters = {{"epochs", "60"}, {"hidden", "32"}};
  const ExperimentResult gine = run_experiment(options);
  options.model = "gcn";
  options.hyperparameters = {{"epochs", "60"}};
  options.row_normalize_features = false;  // the noise features' rows may sum to about 0
  const ExperimentResult gcn = run_experiment(options);
  MESSAGE("test accuracy: gine ", gine.test_accuracy, ", gcn ", gcn.test_accuracy, " (4 classes)");
  CHECK(gine.test_accuracy >= 0.75);
  CHECK(gcn.test_accuracy <= 0.40);
  CHECK(gine.test_accuracy - gcn.test_accuracy >= 0.35);
  CHECK(gine.features == 16);
}

TEST_CASE("gine refuses a dataset without edge features, naming it and where they go") {
  TempDir dir;
  graph_io::EdgeFeatureOptions generated;
  generated.num_nodes = 50;
  graph_io::Dataset dataset = graph_io::generate_edge_feature_dataset(generated);
  dataset.edge_features = Tensor();
  graph_io::write_ogb_dataset(dataset, dir / "plain");
  ExperimentOptions options;
  options.dataset = (dir / "plain").string();
  options.model = "gine";
  CHECK_THROWS_WITH_AS(run_experiment(options), doctest::Contains("the gine model reads edge features, and dataset"),
                       InvalidArgument);
}
