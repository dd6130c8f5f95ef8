#include <doctest/doctest.h>

#include <algorithm>

#include "graph_io/generators/generators.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("R-MAT is deterministic from its seed and yields a skewed degree distribution") {
  RmatOptions options;
  options.num_nodes = 1000;  // not a power of two: ids are folded into range
  options.num_edges = 20000;
  options.seed = 5;
  const EdgeList first = generate_rmat(options);
  const EdgeList second = generate_rmat(options);
  first.validate();
  CHECK(first.num_edges() == 20000);
  CHECK(first.source.to_vector<int32_t>() == second.source.to_vector<int32_t>());
  CHECK(first.target.to_vector<int32_t>() == second.target.to_vector<int32_t>());
  options.seed = 6;
  CHECK(generate_rmat(options).source.to_vector<int32_t>() != first.source.to_vector<int32_t>());

  std::vector<int64_t> degree(1000, 0);
  for (int32_t t : first.target.to_vector<int32_t>()) ++degree[static_cast<std::size_t>(t)];
  std::sort(degree.begin(), degree.end(), std::greater<>());
  // Power law: the top 1% of nodes hold far more than 1% of the edges.
  int64_t top = 0;
  for (int i = 0; i < 10; ++i) top += degree[static_cast<std::size_t>(i)];
  CHECK(top > 20000 / 10);
}

TEST_CASE("R-MAT refuses bad options") {
  RmatOptions options;
  options.num_nodes = 0;
  CHECK_THROWS_AS(generate_rmat(options), InvalidArgument);
  options.num_nodes = 10;
  options.a = 0.9;
  CHECK_THROWS_AS(generate_rmat(options), InvalidArgument);
}
