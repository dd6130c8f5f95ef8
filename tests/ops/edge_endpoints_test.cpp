#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ops/edge_endpoints.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/elementwise.hpp"
#include "ops/gather_scatter.hpp"
#include "ops/shape.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/gather_scatter_reference.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::ReduceKind;

TEST_CASE("edge_sources is the CSR's columns and edge_destinations the row of every entry") {
  // 2000 entries (the plan's entry rows) and 400000 (computed on request, then kept).
  for (const Adjacency& adjacency : {random_graph(300, 2000, 1), random_graph(30000, 400000, 2)}) {
    CAPTURE(adjacency.nnz());
    const EdgeCoordinates coordinates = edge_coordinates(adjacency);
    const Tensor sources = ops::edge_sources(adjacency);
    CHECK(sources.shares_storage_with(adjacency.csr.indices));
    CHECK(to_int64(sources) == coordinates.column);
    const Tensor destinations = ops::edge_destinations(adjacency);
    CHECK(destinations.dtype() == DType::Int32);
    CHECK(to_int64(destinations) == coordinates.row);
    CHECK(ops::edge_destinations(adjacency).shares_storage_with(destinations));
  }
  CHECK(random_graph(30000, 400000, 2).nnz() > ops::kEntryRowsMaxEntries);
}

// PyG's message(x_i, x_j) = x_j − x_i aggregated by every reduction, against
// float64 sums over the entries of each row.
TEST_CASE("messages gathered at both endpoints and reduced over A's rows match a float64 reference") {
  const Adjacency adjacency = random_graph(50, 300, 3);  // rows without entries occur
  const EdgeCoordinates coordinates = edge_coordinates(adjacency);
  const Tensor x = random_tensor({50, 2, 3}, 4);
  const Tensor x_j = ops::gather_rows(x, ops::edge_sources(adjacency));
  const Tensor x_i = ops::gather_rows(x, ops::edge_destinations(adjacency));
  const Tensor messages = ops::add(x_j, ops::scale(x_i, -1.0f));
  const std::vector<double> features = to_double(x);
  std::vector<double> expected;
  for (std::size_t e = 0; e < coordinates.row.size(); ++e) {
    for (std::size_t j = 0; j < 6; ++j) {
      expected.push_back(features[static_cast<std::size_t>(coordinates.column[e]) * 6 + j] -
                         features[static_cast<std::size_t>(coordinates.row[e]) * 6 + j]);
    }
  }
  for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min}) {
    CAPTURE(ops::reduce_kind_name(reduce));
    const Tensor out = ops::segment_reduce(messages, adjacency.csr.indptr, reduce);
    CHECK(out.shape() == Shape{50, 2, 3});
    CHECK(relative_error(out, reference_reduce(expected, 6, coordinates.row, 50, reduce).values) < 1e-6);
  }
}

TEST_CASE("edge_softmax takes DGL's [nnz, H, 1] scores as [nnz, H], scores made by gathers, and differentiates them") {
  const Adjacency adjacency = random_graph(40, 200, 5);
  const EdgeCoordinates coordinates = edge_coordinates(adjacency);
  const int64_t nnz = adjacency.nnz(), heads = 3;
  // Scores from node terms gathered at both endpoints: l_i · r_j (a row's
  // softmax ignores a term added to every score of the row, so a sum would
  // leave l without gradient).
  Tensor left = random_tensor({40, heads}, 6, -2.0, 2.0).set_requires_grad(true);
  Tensor right = random_tensor({40, heads}, 7, -2.0, 2.0).set_requires_grad(true);
  const auto scores_of = [&](const Tensor& l, const Tensor& r) {
    return ops::mul(ops::gather_rows(l, ops::edge_destinations(adjacency)),
                    ops::gather_rows(r, ops::edge_sources(adjacency)));
  };
  const Tensor scores = scores_of(left, right);
  const Tensor flat = ops::edge_softmax(adjacency, scores);
  const Tensor dgl = ops::edge_softmax(adjacency, scores.view({nnz, heads, 1}));
  CHECK(dgl.shape() == Shape{nnz, heads, 1});
  CHECK(to_double(dgl) == to_double(flat));

  // float64 softmax over each row's entries, per head.
  const std::vector<double> s = to_double(scores);
  std::vector<double> expected(s.size());
  for (int64_t row = 0; row < 40; ++row) {
    for (int64_t h = 0; h < heads; ++h) {
      double peak = -INFINITY, total = 0.0;
      for (int64_t e = 0; e < nnz; ++e) {
        if (coordinates.row[static_cast<std::size_t>(e)] == row) peak = std::max(peak, s[static_cast<std::size_t>(e * heads + h)]);
      }
      for (int64_t e = 0; e < nnz; ++e) {
        if (coordinates.row[static_cast<std::size_t>(e)] == row) total += std::exp(s[static_cast<std::size_t>(e * heads + h)] - peak);
      }
      for (int64_t e = 0; e < nnz; ++e) {
        if (coordinates.row[static_cast<std::size_t>(e)] == row) {
          expected[static_cast<std::size_t>(e * heads + h)] = std::exp(s[static_cast<std::size_t>(e * heads + h)] - peak) / total;
        }
      }
    }
  }
  CHECK(relative_error(flat, expected) < 1e-6);
  CHECK(gradient_error(
            [&](const std::vector<Tensor>& in) {
              return ops::edge_softmax(adjacency, ops::reshape(scores_of(in[0], in[1]), {nnz, heads, 1}));
            },
            {left, right}) < 1e-2);
  const std::string text =
      invalid_argument_text([&] { (void)ops::edge_softmax(adjacency, random_tensor({nnz, heads, 2}, 8)); });
  CHECK(text.find("edge_softmax") != std::string::npos);
  CHECK(text.find("[nnz, heads, 1]") != std::string::npos);
  CHECK(text.find(shape_str({nnz, heads, 2})) != std::string::npos);
}
