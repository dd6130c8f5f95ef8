#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/autograd.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/gat_conv.hpp"
#include "training/nn/gcn_conv.hpp"
#include "graph_io/prepare.hpp"
#include "training/nn/linear.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"
#include "tests/training/dense_reference.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

Tensor parameter(const Module& module, const std::string& name) {
  for (const auto& [key, value] : module.named_parameters())
    if (key == name) return value;
  FAIL("no parameter " << name);
  return Tensor();
}

void randomize_parameters(Module& module, uint64_t seed) {
  for (Tensor p : module.parameters()) copy_into(p, random_tensor(p.shape(), seed++, -0.5, 0.5));
}

}  // namespace

TEST_CASE("Linear computes x·W + b with W [in, out]") {
  Generator generator(1);
  Linear linear(5, 3, generator);
  randomize_parameters(linear, 10);
  const Tensor x = random_tensor({4, 5}, 2);
  Matrix expected = multiply(to_matrix(x), to_matrix(linear.weight()));
  const std::vector<double> bias = to_double(linear.bias());
  for (auto& row : expected)
    for (std::size_t j = 0; j < row.size(); ++j) row[j] += bias[j];
  CHECK(relative_error(linear.forward(x), flatten(expected)) < 1e-6);
  CHECK_THROWS_WITH_AS(linear.forward(random_tensor({4, 6}, 3)), doctest::Contains("expects 5"), InvalidArgument);
  Linear no_bias(5, 3, generator, false);
  CHECK(no_bias.named_parameters().size() == 1);
}

TEST_CASE("GCNConv computes Â·X·W + b in both multiplication orders") {
  const Adjacency adjacency = random_graph(12, 40, 5, /*weighted=*/true);
  const GraphInput graph{adjacency};
  for (const auto& [in, out] : {std::pair<int64_t, int64_t>{3, 7}, {7, 3}}) {
    Generator generator(2);
    GCNConv conv(in, out, generator);
    CHECK(conv.aggregates_first() == (in < out));
    randomize_parameters(conv, 20);
    const Tensor x = random_tensor({12, in}, 4);
    Matrix expected = multiply(multiply(dense_adjacency(adjacency), to_matrix(x)),
                               to_matrix(parameter(conv, "weight")));
    const std::vector<double> bias = to_double(parameter(conv, "bias"));
    for (auto& row : expected)
      for (std::size_t j = 0; j < row.size(); ++j) row[j] += bias[j];
    CHECK(relative_error(conv.forward(graph, x), flatten(expected)) < 1e-5);
  }
}

TEST_CASE("GCNConv rejects features whose row count is not the graph's node count") {
  const Adjacency adjacency = random_graph(12, 40, 5, true);
  Generator generator(2);
  GCNConv conv(3, 4, generator);
  CHECK_THROWS_WITH_AS(conv.forward(GraphInput{adjacency}, random_tensor({11, 3}, 1)),
                       doctest::Contains("the graph has 12 nodes"), InvalidArgument);
  CHECK_THROWS_WITH_AS(conv.forward(GraphInput{}, random_tensor({12, 3}, 1)), doctest::Contains("no adjacency"),
                       InvalidArgument);
}

TEST_CASE("GATConv matches a float64 reference of attention, softmax and aggregation (concat and mean)") {
  const Adjacency adjacency = random_graph(9, 30, 8);
  const EdgeCoordinates coordinates = edge_coordinates(adjacency);
  for (const bool concat : {true, false}) {
    Generator generator(3);
    GATOptions options;
    options.heads = 2;
    options.concat = concat;
    GATConv conv(4, 3, generator, options);
    randomize_parameters(conv, 30);
    const Tensor x = random_tensor({9, 4}, 6);
    const Matrix wh = multiply(to_matrix(x), to_matrix(parameter(conv, "weight")));  // [9, 6]
    const Matrix a_row = to_matrix(parameter(conv, "attention_row"));
    const Matrix a_column = to_matrix(parameter(conv, "attention_column"));
    const std::vector<double> bias = to_double(parameter(conv, "bias"));
    Matrix expected(9, std::vector<double>(concat ? 6 : 3, 0.0));
    for (std::size_t h = 0; h < 2; ++h) {
      auto score = [&](std::size_t node, const Matrix& a) {
        double s = 0;
        for (std::size_t f = 0; f < 3; ++f) s += a[h][f] * wh[node][h * 3 + f];
        return s;
      };
      for (std::size_t i = 0; i < 9; ++i) {
        std::vector<std::pair<std::size_t, double>> row;  // (column, e)
        for (std::size_t e = 0; e < coordinates.row.size(); ++e) {
          if (static_cast<std::size_t>(coordinates.row[e]) != i) continue;
          const auto j = static_cast<std::size_t>(coordinates.column[e]);
          const double raw = score(i, a_row) + score(j, a_column);
          row.emplace_back(j, raw > 0 ? raw : 0.2 * raw);
        }
        double top = -1e300, total = 0;
        for (const auto& entry : row) top = std::max(top, entry.second);
        for (const auto& entry : row) total += std::exp(entry.second - top);
        for (const auto& [j, e] : row) {
          const double alpha = std::exp(e - top) / total;
          for (std::size_t f = 0; f < 3; ++f) {
            const double contribution = alpha * wh[j][h * 3 + f];
            if (concat) expected[i][h * 3 + f] += contribution;
            else expected[i][f] += contribution / 2.0;
          }
        }
      }
    }
    for (auto& row : expected)
      for (std::size_t j = 0; j < row.size(); ++j) row[j] += bias[j];
    conv.eval();
    const Tensor y = conv.forward(GraphInput{adjacency}, x);
    CHECK(y.shape() == Shape{9, concat ? 6 : 3});
    CHECK(relative_error(y, flatten(expected)) < 1e-5);
  }
}

TEST_CASE("GATConv gradients match finite differences on a small graph (weights, attention, bias, input)") {
  const Adjacency adjacency = random_graph(7, 20, 11);
  for (const bool concat : {true, false}) {
    Generator generator(4);
    GATOptions options;
    options.heads = 3;
    options.concat = concat;
    GATConv conv(5, 2, generator, options);
    randomize_parameters(conv, 40);
    conv.eval();
    Tensor x = random_tensor({7, 5}, 12).set_requires_grad(true);
    std::vector<Tensor> inputs = conv.parameters();
    inputs.push_back(x);
    const GraphInput graph{adjacency};
    const double error = gradient_error([&](const std::vector<Tensor>&) { return conv.forward(graph, x); }, inputs,
                                        1e-3);
    CHECK(error < 2e-2);
  }
}

TEST_CASE("GATConv's projected dropout drops W·x before aggregation in training mode only") {
  // Self loops only: every attention weight is 1, so row i of the output is
  // exactly the (dropped) projection of node i (the bias starts at zero).
  const int64_t nodes = 64;
  graph_io::EdgeList edges;
  edges.num_nodes = nodes;
  std::vector<int32_t> ids(static_cast<std::size_t>(nodes));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  edges.source = Tensor::from_vector(ids, {nodes});
  edges.target = Tensor::from_vector(ids, {nodes});
  const Adjacency adjacency = graph_io::prepare_adjacency(edges, graph_io::PrepareOptions{});
  const GraphInput graph{adjacency};
  Generator generator(3);
  GATOptions options;
  options.heads = 2;
  options.projected_dropout = 0.5f;
  GATConv conv(4, 3, generator, options);
  const Tensor x = random_tensor({nodes, 4}, 21);
  conv.eval();
  const std::vector<float> kept = conv.forward(graph, x).to_vector<float>();
  conv.train();
  const std::vector<float> dropped = conv.forward(graph, x).to_vector<float>();
  REQUIRE(kept.size() == dropped.size());
  std::size_t zeros = 0;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    CAPTURE(k);
    if (dropped[k] == 0.0f) {
      ++zeros;
    } else {
      CHECK(dropped[k] == doctest::Approx(2.0f * kept[k]).epsilon(1e-5));
    }
  }
  CHECK(zeros > kept.size() / 4);  // about half are dropped
  CHECK(zeros < 3 * kept.size() / 4);

  GATOptions full;
  full.projected_dropout = 1.0f;
  CHECK_THROWS_WITH_AS(GATConv(3, 2, generator, full), doctest::Contains("projected dropout"), InvalidArgument);
}

TEST_CASE("GATConv rejects bad options") {
  Generator generator(1);
  GATOptions zero_heads;
  zero_heads.heads = 0;
  CHECK_THROWS_WITH_AS(GATConv(3, 2, generator, zero_heads), doctest::Contains("heads must be positive"),
                       InvalidArgument);
  GATOptions full_dropout;
  full_dropout.attention_dropout = 1.0f;
  CHECK_THROWS_AS(GATConv(3, 2, generator, full_dropout), InvalidArgument);
}

TEST_CASE("Dropout is the identity in eval mode and drops in training mode; Sequential chains and names layers") {
  Generator generator(9);
  auto dropout = std::make_shared<Dropout>(0.5f, generator);
  const Tensor x = Tensor::full({50, 4}, 1.0);
  Sequential network({dropout, std::make_shared<Relu>(), std::make_shared<Linear>(4, 2, generator)});
  CHECK(network.named_parameters()[0].first == "2.weight");
  network.eval();
  CHECK(dropout->forward(GraphInput{}, x).to_vector<float>() == x.to_vector<float>());
  network.train();
  const std::vector<float> dropped = dropout->forward(GraphInput{}, x).to_vector<float>();
  const auto zeros = std::count(dropped.begin(), dropped.end(), 0.0f);
  CHECK(zeros > 50);
  CHECK(zeros < 150);
  CHECK(network.forward(GraphInput{}, x).shape() == Shape{50, 2});
  CHECK_THROWS_AS(Dropout(1.0f, generator), InvalidArgument);
}

TEST_CASE("a forward pass under NoGradGuard builds no tape") {
  const Adjacency adjacency = random_graph(9, 30, 8);
  Generator generator(3);
  GATConv conv(4, 3, generator);
  const Tensor x = random_tensor({9, 4}, 6);
  CHECK(conv.forward(GraphInput{adjacency}, x).grad_fn() != nullptr);
  autograd::NoGradGuard no_grad;
  const Tensor y = conv.forward(GraphInput{adjacency}, x);
  CHECK(y.grad_fn() == nullptr);
  CHECK_FALSE(y.requires_grad());
}
