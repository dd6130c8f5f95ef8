#include <doctest/doctest.h>

#include <array>
#include <cstdlib>

#include "graph_io/graph.hpp"
#include "graph_io/generators/grid_graphs.hpp"
#include "graph_io/prepare.hpp"
#include "tests/graph_io/generator_checks.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

namespace {

using Coordinates = std::array<int64_t, 3>;

Coordinates coordinates(int64_t node, const std::array<int64_t, 3>& sides) {
  return {node % sides[0], node / sides[0] % sides[1], node / (sides[0] * sides[1])};
}

// The neighbour sets a definition gives, node by node (O(n²): small grids only).
std::vector<std::set<int64_t>> defined_neighbours(
    int64_t unknowns, int64_t dofs, const std::array<int64_t, 3>& sides,
    const std::function<bool(const Coordinates&, const Coordinates&)>& coupled) {
  std::vector<std::set<int64_t>> neighbours(static_cast<std::size_t>(unknowns));
  for (int64_t u = 0; u < unknowns; ++u) {
    for (int64_t w = 0; w < unknowns; ++w) {
      if (u != w && coupled(coordinates(u / dofs, sides), coordinates(w / dofs, sides))) {
        neighbours[static_cast<std::size_t>(u)].insert(w);
      }
    }
  }
  return neighbours;
}

// Every edge from a smaller id to a larger one, none repeated.
bool each_pair_once_upward(const EdgeList& edges) {
  const std::vector<int32_t> s = edges.source.to_vector<int32_t>(), t = edges.target.to_vector<int32_t>();
  std::set<std::pair<int32_t, int32_t>> pairs;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] >= t[k]) return false;
    pairs.insert({s[k], t[k]});
  }
  return pairs.size() == s.size();
}

// Row lengths of the GCN matrix (symmetrised, one self loop per node).
std::vector<int64_t> gcn_row_lengths(const EdgeList& edges) {
  return prepare_adjacency(edges, gcn_graph_options().prepare).csr.row_lengths();
}

}  // namespace

TEST_CASE("stencils: exactly the 5/9-point (2D) and 7/27-point (3D) neighbourhoods, each pair once") {
  struct Case {
    std::array<int64_t, 3> grid;
    StencilShape shape;
    int64_t radius, points;
  };
  for (const Case& c : {Case{{12, 10, 1}, StencilShape::Cross, 1, 5}, Case{{12, 10, 1}, StencilShape::Box, 1, 9},
                        Case{{8, 7, 6}, StencilShape::Cross, 1, 7}, Case{{8, 7, 6}, StencilShape::Box, 1, 27},
                        Case{{9, 8, 1}, StencilShape::Cross, 2, 9}, Case{{40, 1, 1}, StencilShape::Box, 8, 17}}) {
    CAPTURE(c.points);
    CAPTURE(c.radius);
    const StencilOptions options{c.grid, c.radius, c.shape};
    CHECK(stencil_points(options) == c.points);
    const EdgeList edges = generate_stencil(options);
    edges.validate();
    CHECK(edges.num_nodes == c.grid[0] * c.grid[1] * c.grid[2]);
    CHECK(each_pair_once_upward(edges));
    const bool box = c.shape == StencilShape::Box;
    const auto coupled = [&](const Coordinates& a, const Coordinates& b) {
      int64_t moved_axes = 0, reach = 0;
      for (std::size_t i = 0; i < 3; ++i) {
        moved_axes += a[i] != b[i] ? 1 : 0;
        reach = std::max(reach, std::abs(a[i] - b[i]));
      }
      return reach <= c.radius && (box || moved_axes <= 1);
    };
    CHECK(sgnn::testing::neighbour_sets(edges) == defined_neighbours(edges.num_nodes, 1, c.grid, coupled));
    // Interior rows of the GCN matrix hold exactly the stencil's points.
    const std::vector<int64_t> rows = gcn_row_lengths(edges);
    int64_t interior = 0;
    for (int64_t v = 0; v < edges.num_nodes; ++v) {
      const Coordinates p = coordinates(v, c.grid);
      bool inside = true;
      for (std::size_t i = 0; i < 3; ++i) {
        inside = inside && (c.grid[i] == 1 || (p[i] >= c.radius && p[i] < c.grid[i] - c.radius));
      }
      if (!inside) continue;
      ++interior;
      CHECK(rows[static_cast<std::size_t>(v)] == c.points);
    }
    CHECK(interior > 0);
    sgnn::testing::check_thread_independent([&] { return generate_stencil(options); });
  }
}

TEST_CASE("FEM meshes: unknowns linked exactly when their nodes share an element, orders 1 and 2, 1-3 dofs") {
  struct Case {
    std::array<int64_t, 3> elements;
    int64_t order, dofs;
  };
  for (const Case& c : {Case{{4, 3, 0}, 1, 1}, Case{{4, 3, 0}, 2, 1}, Case{{3, 2, 0}, 2, 2}, Case{{2, 2, 2}, 1, 3},
                        Case{{2, 1, 2}, 2, 3}, Case{{5, 0, 0}, 2, 1}}) {
    CAPTURE(c.order);
    CAPTURE(c.dofs);
    CAPTURE(c.elements[0]);
    const FemMeshOptions options{c.elements, c.order, c.dofs};
    const EdgeList edges = generate_fem_mesh(options);
    edges.validate();
    std::array<int64_t, 3> sides{};
    for (std::size_t i = 0; i < 3; ++i) sides[i] = c.order * c.elements[i] + 1;
    CHECK(edges.num_nodes == sides[0] * sides[1] * sides[2] * c.dofs);
    CHECK(fem_mesh_unknowns(options) == edges.num_nodes);
    CHECK(each_pair_once_upward(edges));
    // Element e of an axis holds nodes [order·e, order·e + order].
    const auto coupled = [&](const Coordinates& a, const Coordinates& b) {
      for (std::size_t i = 0; i < 3; ++i) {
        bool shared = c.elements[i] == 0;
        for (int64_t e = 0; e < c.elements[i]; ++e) {
          const int64_t first = c.order * e, last = first + c.order;
          shared = shared || (a[i] >= first && a[i] <= last && b[i] >= first && b[i] <= last);
        }
        if (!shared) return false;
      }
      return true;
    };
    CHECK(sgnn::testing::neighbour_sets(edges) == defined_neighbours(edges.num_nodes, c.dofs, sides, coupled));
  }
}

TEST_CASE("FEM meshes: the textbook row lengths, the linear mesh is the box stencil, and bench_hrpb's old count") {
  // Quadratic quadrilaterals (9 nodes each): an interior vertex meets 25 nodes,
  // a mid-edge node 15, an element centre 9; times 2 dofs per node.
  const EdgeList quadratic = generate_fem_mesh({{4, 4, 0}, 2, 2});
  const std::vector<int64_t> rows = gcn_row_lengths(quadratic);
  const auto row_of = [](int64_t x, int64_t y, int64_t dof) { return static_cast<std::size_t>((y * 9 + x) * 2 + dof); };
  CHECK(rows[row_of(4, 4, 0)] == 25 * 2);
  CHECK(rows[row_of(4, 4, 1)] == 25 * 2);
  CHECK(rows[row_of(3, 4, 0)] == 15 * 2);
  CHECK(rows[row_of(3, 3, 1)] == 9 * 2);
  // Quadratic hexahedra: an interior vertex meets 125 nodes.
  const std::vector<int64_t> rows_3d = gcn_row_lengths(generate_fem_mesh({{2, 2, 2}, 2, 1}));
  CHECK(rows_3d[static_cast<std::size_t>((2 * 5 + 2) * 5 + 2)] == 125);
  // Linear elements with one dof: the 9-point / 27-point box stencil.
  CHECK(sgnn::testing::same_edges(generate_fem_mesh({{6, 5, 0}, 1, 1}),
                                  generate_stencil({{7, 6, 1}, 1, StencilShape::Box})));
  CHECK(sgnn::testing::same_edges(generate_fem_mesh({{3, 4, 2}, 1, 1}),
                                  generate_stencil({{4, 5, 3}, 1, StencilShape::Box})));
  // bench_hrpb's element grid had (Π (3n − 2) · dofs² − unknowns) / 2 edges (n nodes per axis).
  const EdgeList linear = generate_fem_mesh({{9, 6, 4}, 1, 3});
  const int64_t unknowns = 10 * 7 * 5 * 3;
  CHECK(linear.num_edges() == (28 * 19 * 13 * 9 - unknowns) / 2);
  sgnn::testing::check_thread_independent([] { return generate_fem_mesh({{9, 6, 4}, 2, 2}); });
}

TEST_CASE("grid generators refuse bad options") {
  CHECK_THROWS_WITH_AS(generate_fem_mesh({{4, 4, 0}, 3, 1}), doctest::Contains("order 3 is not 1 (linear) or 2"),
                       InvalidArgument);
  CHECK_THROWS_AS(generate_fem_mesh({{4, 4, 0}, 1, 0}), InvalidArgument);
  CHECK_THROWS_AS(generate_fem_mesh({{4, 4, 0}, 1, 4}), InvalidArgument);
  CHECK_THROWS_AS(generate_fem_mesh({{4, -1, 0}, 1, 1}), InvalidArgument);
  CHECK_THROWS_WITH_AS(generate_fem_mesh({{2000, 2000, 2000}, 2, 3}), doctest::Contains("reach 2^31"), InvalidArgument);
  CHECK_THROWS_AS(generate_stencil({{0, 4, 1}, 1, StencilShape::Cross}), InvalidArgument);
  CHECK_THROWS_AS(generate_stencil({{4, 4, 1}, 0, StencilShape::Box}), InvalidArgument);
  CHECK_THROWS_AS(generate_stencil({{100000, 100000, 1}, 1, StencilShape::Box}), InvalidArgument);
}
