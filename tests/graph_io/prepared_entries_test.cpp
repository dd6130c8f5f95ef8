// count_prepared_entries against the entries prepare_adjacency really builds,
// on multigraphs with repeats, both directions, self loops and a hub row.
#include <doctest/doctest.h>

#include "graph_io/prepared_entries.hpp"
#include "tests/graph_io/random_graphs.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using namespace sgnn::testing;

TEST_CASE("count_prepared_entries equals the nnz prepare_adjacency builds, for every symmetrize / self-loop option") {
  const std::vector<NamedEdges> graphs = {
      {"path with a loop and a repeat", edges_from(4, {0, 1, 1, 2, 2}, {1, 2, 2, 2, 3})},
      {"both directions stored", edges_from(3, {0, 1, 1, 2}, {1, 0, 2, 1})},
      {"random multigraph", random_edges(200, 1500, 3, false)},
      {"random with a hub", random_edges(300, 900, 4, true, 250)},
      {"no edges", edges_from(5, {}, {})},
  };
  for (const NamedEdges& graph : graphs) {
    for (const bool symmetrize : {false, true}) {
      for (const SelfLoops loops : {SelfLoops::Keep, SelfLoops::Add, SelfLoops::Remove}) {
        CAPTURE(graph.name);
        CAPTURE(symmetrize);
        CAPTURE(static_cast<int>(loops));
        PrepareOptions options;
        options.symmetrize = symmetrize;
        options.self_loops = loops;
        CHECK(count_prepared_entries(graph.edges, options) == prepare_adjacency(graph.edges, options).nnz());
      }
    }
  }
}

TEST_CASE("count_prepared_entries of a graph stored in both directions is about half the 2·edges + nodes bound") {
  // 0 <-> 1 <-> 2 stored as four directed edges: 4 entries plus 3 self loops, not 2·4 + 3.
  PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = SelfLoops::Add;
  CHECK(count_prepared_entries(edges_from(3, {0, 1, 1, 2}, {1, 0, 2, 1}), options) == 7);
}

TEST_CASE("count_prepared_entries refuses an invalid edge list") {
  CHECK_THROWS_AS(count_prepared_entries(edges_from(3, {0, 5}, {1, 2}), {}), InvalidArgument);
  CHECK_THROWS_AS(count_prepared_entries(edges_from(3, {0, 1}, {1}), {}), InvalidArgument);
}
