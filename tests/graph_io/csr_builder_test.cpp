#include <doctest/doctest.h>

#include "graph_io/prepare.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/reference_prepare.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("Thrust host builder equals the sequential reference exactly, for every option combination") {
  for (const auto& graph : sgnn::testing::test_graphs(/*large=*/false)) {
    for (const PrepareOptions& options : sgnn::testing::all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(sgnn::testing::describe(options));
      const Adjacency built = prepare_adjacency(graph.edges, options);
      built.validate();
      sgnn::testing::check_same_adjacency(built, reference::reference_prepare_adjacency(graph.edges, options));
    }
  }
}

TEST_CASE("Thrust host builder on a hub row of 100000 edges equals the reference") {
  const EdgeList edges = sgnn::testing::random_edges(30001, 200000, 22, true, 100000);
  PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = SelfLoops::Add;
  options.normalization = Normalization::Symmetric;
  const Adjacency built = prepare_adjacency(edges, options);
  sgnn::testing::check_same_adjacency(built, reference::reference_prepare_adjacency(edges, options));
  CHECK(built.csr.row_order.to_vector<int32_t>()[0] == 0);  // the hub row comes first
}

TEST_CASE("prepare names the first bad edge found by the parallel check") {
  const EdgeList edges = sgnn::testing::edges_from(3, {0, 1, 2, 1}, {1, 3, 0, 7});
  CHECK_THROWS_WITH_AS(prepare_adjacency(edges, {}), doctest::Contains("edge 1 (1 -> 3)"), InvalidArgument);
  const EdgeList infinite = sgnn::testing::edges_from(3, {0, 1}, {1, 2}, {1.0f, INFINITY});
  CHECK_THROWS_WITH_AS(prepare_adjacency(infinite, {}), doctest::Contains("not finite"), InvalidArgument);
  EdgeList mismatched = sgnn::testing::edges_from(3, {0, 1}, {1, 2});
  mismatched.target = Tensor::from_vector(std::vector<int32_t>{1}, {1});
  CHECK_THROWS_AS(prepare_adjacency(mismatched, {}), InvalidArgument);
}
