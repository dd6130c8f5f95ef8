// SGConv and APPNPPropagation against float64 references of their formulas
// on small weighted graphs, their gradients against finite differences, and
// SGConv's cache of the propagation (kept per graph and input, never stale).
#include <doctest/doctest.h>

#include <vector>

#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"
#include "tests/training/dense_reference.hpp"
#include "training/nn/appnp_propagation.hpp"
#include "training/nn/sg_conv.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

// Â^K · x · W + b in float64.
std::vector<double> sg_reference(const Adjacency& adjacency, const Tensor& x, int64_t hops, const Linear& linear) {
  const Matrix a = dense_adjacency(adjacency);
  Matrix h = to_matrix(x);
  for (int64_t hop = 0; hop < hops; ++hop) h = multiply(a, h);
  Matrix out = multiply(h, to_matrix(linear.weight()));
  const std::vector<double> bias = to_double(linear.bias());
  for (auto& row : out)
    for (std::size_t j = 0; j < row.size(); ++j) row[j] += bias[j];
  return flatten(out);
}

}  // namespace

TEST_CASE("SGConv computes Â^K·X·W + b for K = 1, 2, 3") {
  const Adjacency adjacency = random_graph(11, 40, 5, /*weighted=*/true);
  const Tensor x = random_tensor({11, 4}, 6);
  for (const int64_t hops : {1, 2, 3}) {
    CAPTURE(hops);
    Generator generator(2);
    SGConv conv(4, 3, hops, generator);
    for (Tensor p : conv.parameters()) copy_into(p, random_tensor(p.shape(), 20, -0.5, 0.5));
    CHECK(conv.named_parameters().size() == 2);  // linear.weight, linear.bias
    CHECK(relative_error(conv.forward(GraphInput{adjacency}, x), sg_reference(adjacency, x, hops, conv.linear())) <
          1e-5);
  }
  Generator generator(1);
  CHECK_THROWS_WITH_AS(SGConv(4, 3, 0, generator), doctest::Contains("hops (K) must be at least 1"), InvalidArgument);
  SGConv conv(4, 3, 2, generator);
  CHECK_THROWS_WITH_AS(conv.forward(GraphInput{adjacency}, random_tensor({10, 4}, 1)),
                       doctest::Contains("the graph has 11 nodes"), InvalidArgument);
  CHECK_THROWS_WITH_AS(conv.forward(GraphInput{adjacency}, random_tensor({11, 5}, 1)), doctest::Contains("expects 4"),
                       InvalidArgument);
}

TEST_CASE("SGConv keeps the propagation per graph and input, and recomputes it for another of either") {
  const Adjacency first = random_graph(11, 40, 5, true);
  const Adjacency second = random_graph(11, 40, 9, true);
  Generator generator(2);
  SGConv conv(4, 3, 2, generator);
  const Tensor x = random_tensor({11, 4}, 6);
  const Tensor kept = conv.propagated(GraphInput{first}, x);
  CHECK(conv.propagated(GraphInput{first}, x).shares_storage_with(kept));  // the same tensor: not recomputed
  // Another graph, or other values in another tensor: the cache is not used.
  CHECK(relative_error(conv.forward(GraphInput{second}, x), sg_reference(second, x, 2, conv.linear())) < 1e-5);
  const Tensor y = random_tensor({11, 4}, 7);
  CHECK(relative_error(conv.forward(GraphInput{second}, y), sg_reference(second, y, 2, conv.linear())) < 1e-5);
  CHECK(relative_error(conv.forward(GraphInput{first}, x), sg_reference(first, x, 2, conv.linear())) < 1e-5);
}

TEST_CASE("SGConv gradients match finite differences, through the propagation when the input requires one") {
  const Adjacency adjacency = random_graph(7, 20, 11, true);
  Generator generator(4);
  SGConv conv(5, 2, 2, generator);
  Tensor x = random_tensor({7, 5}, 12).set_requires_grad(true);
  std::vector<Tensor> inputs = conv.parameters();
  inputs.push_back(x);
  const GraphInput graph{adjacency};
  CHECK(gradient_error([&](const std::vector<Tensor>&) { return conv.forward(graph, x); }, inputs, 1e-3) < 1e-2);
}

TEST_CASE("SGConv::forward_rows gives those rows of forward, for new rows and inputs too, with gradients") {
  const Adjacency adjacency = random_graph(11, 40, 5, true);
  const GraphInput graph{adjacency};
  Generator generator(2);
  SGConv conv(4, 3, 2, generator);
  for (Tensor p : conv.parameters()) copy_into(p, random_tensor(p.shape(), 21, -0.5, 0.5));
  CHECK(conv.forward_rows_is_cheaper());
  const auto rows_of = [](const std::vector<double>& all, const std::vector<int32_t>& rows, std::size_t width) {
    std::vector<double> out;
    for (int32_t r : rows)
      for (std::size_t j = 0; j < width; ++j) out.push_back(all[static_cast<std::size_t>(r) * width + j]);
    return out;
  };
  const Tensor x = random_tensor({11, 4}, 6);
  const Tensor y = random_tensor({11, 4}, 7);
  // Rows out of order and repeated; then other rows, then another input: never a kept result of before.
  for (const std::vector<int32_t>& picked : {std::vector<int32_t>{7, 0, 3, 3, 10}, std::vector<int32_t>{1, 2}}) {
    const Tensor rows = Tensor::from_vector(picked, {static_cast<int64_t>(picked.size())});
    for (const Tensor& input : {x, y}) {
      const std::vector<double> expected = rows_of(sg_reference(adjacency, input, 2, conv.linear()), picked, 3);
      const Tensor got = conv.forward_rows(graph, input, rows);
      CHECK(got.shape() == Shape{static_cast<int64_t>(picked.size()), 3});
      CHECK(relative_error(got, expected) < 1e-5);
    }
  }
  // Through the gather to W, b and an input that requires a gradient.
  Tensor z = random_tensor({11, 4}, 8).set_requires_grad(true);
  std::vector<Tensor> inputs = conv.parameters();
  inputs.push_back(z);
  const Tensor rows = Tensor::from_vector(std::vector<int32_t>{4, 9, 4}, {3});
  CHECK(gradient_error([&](const std::vector<Tensor>&) { return conv.forward_rows(graph, z, rows); }, inputs, 1e-3) <
        1e-2);
}

TEST_CASE("APPNPPropagation runs K steps of h = (1 - alpha)·Â·h + alpha·x") {
  const Adjacency adjacency = random_graph(10, 36, 3, true);
  const Tensor x = random_tensor({10, 3}, 8);
  const Matrix a = dense_adjacency(adjacency);
  const Matrix z = to_matrix(x);
  for (const auto& [steps, alpha] : {std::pair<int64_t, float>{1, 0.1f}, {10, 0.1f}, {4, 0.5f}, {3, 1.0f}}) {
    CAPTURE(steps);
    CAPTURE(alpha);
    Matrix h = z;
    for (int64_t step = 0; step < steps; ++step) {
      const Matrix spread = multiply(a, h);
      for (std::size_t i = 0; i < h.size(); ++i)
        for (std::size_t j = 0; j < h[i].size(); ++j)
          h[i][j] = (1.0 - static_cast<double>(alpha)) * spread[i][j] + static_cast<double>(alpha) * z[i][j];
    }
    APPNPPropagation propagation(steps, alpha);
    CHECK(propagation.parameters().empty());
    CHECK(relative_error(propagation.forward(GraphInput{adjacency}, x), flatten(h)) < 1e-5);
  }
  CHECK_THROWS_WITH_AS(APPNPPropagation(0, 0.1f), doctest::Contains("steps (K) must be at least 1"), InvalidArgument);
  CHECK_THROWS_WITH_AS(APPNPPropagation(10, 1.5f), doctest::Contains("alpha) must be in [0, 1]"), InvalidArgument);
  CHECK_THROWS_WITH_AS(APPNPPropagation(2, 0.1f).forward(GraphInput{adjacency}, random_tensor({9, 3}, 1)),
                       doctest::Contains("the graph has 10 nodes"), InvalidArgument);
}

TEST_CASE("APPNPPropagation's gradient matches finite differences") {
  const Adjacency adjacency = random_graph(7, 20, 13, true);
  APPNPPropagation propagation(4, 0.2f);
  Tensor x = random_tensor({7, 3}, 14).set_requires_grad(true);
  const GraphInput graph{adjacency};
  CHECK(gradient_error([&](const std::vector<Tensor>&) { return propagation.forward(graph, x); }, {x}, 1e-3) < 1e-2);
}
