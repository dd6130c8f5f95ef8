#include <doctest/doctest.h>

#include <cmath>

#include "graph_io/graph.hpp"
#include "graph_io/generators/hub.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/generators/uniform_random.hpp"
#include "tests/graph_io/generator_checks.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("uniform random graph of average degree 2: the edge count, no loops, Poisson degrees") {
  UniformRandomOptions options;
  options.num_nodes = 100000;
  options.average_degree = 2;
  options.seed = 3;
  const EdgeList edges = generate_uniform_random(options);
  edges.validate();
  CHECK(edges.num_edges() == 100000);
  const std::vector<int32_t> s = edges.source.to_vector<int32_t>(), t = edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < s.size(); ++k) REQUIRE(s[k] != t[k]);
  // Degrees are Binomial ≈ Poisson(2): e^-2 = 13.5% of the nodes are isolated,
  // 2e^-2 = 27.1% have one neighbour; both ends and every id are reached.
  const std::vector<int64_t> degree = sgnn::testing::end_counts(edges, true, true);
  const auto share = [&](int64_t d) {
    return static_cast<double>(std::count(degree.begin(), degree.end(), d)) / static_cast<double>(degree.size());
  };
  CHECK(share(0) == doctest::Approx(std::exp(-2.0)).epsilon(0.05));
  CHECK(share(1) == doctest::Approx(2 * std::exp(-2.0)).epsilon(0.05));
  const std::vector<int64_t> in_degree = sgnn::testing::end_counts(edges, false, true);
  CHECK(static_cast<double>(std::count(in_degree.begin(), in_degree.end(), 0)) / 1e5 ==
        doctest::Approx(std::exp(-1.0)).epsilon(0.05));
  sgnn::testing::check_thread_independent([&] { return generate_uniform_random(options); });
  CHECK_THROWS_AS(generate_uniform_random({1, 2, 0}), InvalidArgument);
  CHECK_THROWS_AS(generate_uniform_random({100, -1, 0}), InvalidArgument);
  CHECK_THROWS_AS(generate_uniform_random({100, 100, 0}), InvalidArgument);
}

TEST_CASE("hub graph: the hub row has exactly hub_degree distinct entries, every other row is small") {
  HubOptions options;
  options.num_nodes = 50000;
  options.hub_degree = 30000;
  options.average_degree = 4;
  options.seed = 2;
  const EdgeList edges = generate_hub(options);
  edges.validate();
  const int64_t hub = hub_node(options);
  CHECK(hub == 25000);
  // Unsymmetrised, row `hub` of A[target, source] is the hub's edges alone.
  const Adjacency directed = prepare_adjacency(edges, {});
  CHECK(directed.csr.row_lengths()[static_cast<std::size_t>(hub)] == 30000);
  // GCN: the same neighbours both ways plus the self loop; the rest stay near 4 + 1.
  const std::vector<int64_t> rows = prepare_adjacency(edges, gcn_graph_options().prepare).csr.row_lengths();
  CHECK(rows[static_cast<std::size_t>(hub)] == 30001);
  int64_t largest_other = 0;
  double sum_other = 0;
  for (std::size_t v = 0; v < rows.size(); ++v) {
    if (static_cast<int64_t>(v) == hub) continue;
    largest_other = std::max(largest_other, rows[v]);
    sum_other += static_cast<double>(rows[v]);
  }
  CHECK(largest_other < 30);
  // 4 background neighbours + the self loop + the hub for 30000 of 49999 nodes.
  CHECK(sum_other / 49999.0 == doctest::Approx(4.0 + 1.0 + 30000.0 / 49999.0).epsilon(0.01));
  sgnn::testing::check_thread_independent([&] { return generate_hub(options); });

  HubOptions bad = options;
  bad.hub_degree = 50000;
  CHECK_THROWS_WITH_AS(generate_hub(bad), doctest::Contains("hub_degree 50000 outside [0, 49999]"), InvalidArgument);
  bad = options;
  bad.num_nodes = 2;
  CHECK_THROWS_AS(generate_hub(bad), InvalidArgument);
  bad = options;
  bad.average_degree = -1;
  CHECK_THROWS_AS(generate_hub(bad), InvalidArgument);
}
