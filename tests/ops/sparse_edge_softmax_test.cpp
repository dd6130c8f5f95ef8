#include <doctest/doctest.h>

#include <cmath>

#include "ops/edge_softmax.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

std::vector<double> reference_softmax(const Adjacency& a, int64_t heads, const Tensor& scores) {
  const EdgeCoordinates edges = edge_coordinates(a);
  const std::vector<double> s = to_double(scores);
  std::vector<double> out(s.size());
  std::size_t begin = 0;
  while (begin < edges.row.size()) {
    std::size_t end = begin;
    while (end < edges.row.size() && edges.row[end] == edges.row[begin]) ++end;
    for (std::size_t h = 0; h < static_cast<std::size_t>(heads); ++h) {
      const auto at = [&](std::size_t e) { return e * static_cast<std::size_t>(heads) + h; };
      double maximum = -INFINITY;
      for (std::size_t e = begin; e < end; ++e) maximum = std::max(maximum, s[at(e)]);
      double sum = 0.0;
      for (std::size_t e = begin; e < end; ++e) sum += std::exp(s[at(e)] - maximum);
      for (std::size_t e = begin; e < end; ++e) out[at(e)] = std::exp(s[at(e)] - maximum) / sum;
    }
    begin = end;
  }
  return out;
}

}  // namespace

TEST_CASE("edge_softmax matches a float64 reference, with empty rows and large scores") {
  uint64_t seed = 300;
  for (const Adjacency& a : {random_graph(1, 1, 1), random_graph(20, 6, 2), random_graph(60, 400, 3),
                             rmat_graph(256, 2000, 4), hub_graph(300, 250, 9)}) {
    const Tensor scores = random_tensor({a.nnz()}, ++seed, -5.0, 5.0);
    const Tensor out = ops::edge_softmax(a, scores);
    CHECK(out.shape() == Shape{a.nnz()});
    CHECK(relative_error(out, reference_softmax(a, 1, scores)) < 1e-6);
    // Scores near float's exp overflow: stable only when the row maximum is subtracted.
    const Tensor large = random_tensor({a.nnz(), 8}, ++seed, 200.0, 400.0);
    const Tensor hout = ops::edge_softmax(a, large);
    CHECK(relative_error(hout, reference_softmax(a, 8, large)) < 1e-5);
  }
}

TEST_CASE("edge_softmax gradient matches finite differences") {
  const Adjacency a = random_graph(8, 20, 61);
  for (int64_t heads : {1, 8}) {
    Tensor scores = random_tensor(heads == 1 ? Shape{a.nnz()} : Shape{a.nnz(), heads}, 62).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::edge_softmax(a, in[0]); }, {scores}) <
          1e-2);
  }
}

TEST_CASE("edge_softmax refuses bad arguments with InvalidArgument") {
  const Adjacency a = random_graph(10, 30, 71);
  CHECK_THROWS_AS(ops::edge_softmax(a, random_tensor({a.nnz() - 1}, 72)), InvalidArgument);
  CHECK_THROWS_AS(ops::edge_softmax(a, random_tensor({a.nnz(), 2, 2}, 72)), InvalidArgument);
  CHECK_THROWS_AS(ops::edge_softmax(a, Tensor::zeros({a.nnz()}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::edge_softmax(a, Tensor()), InvalidArgument);
}
