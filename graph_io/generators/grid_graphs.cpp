#include "graph_io/generators/grid_graphs.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "graph_io/generators/generator_support.hpp"

namespace sgnn::graph_io {

namespace {

// The coordinates along one axis that coordinate p is coupled with: the
// interval [low[p], high[p]] (p included). Stencils and Lagrange elements both
// couple intervals, so a grid's coupling is the product (Box) or the union of
// the axis lines (Cross) of three intervals.
struct AxisCoupling {
  std::vector<int32_t> low, high;
};

AxisCoupling stencil_axis(int64_t nodes, int64_t radius) {
  AxisCoupling axis{std::vector<int32_t>(static_cast<std::size_t>(nodes)),
                    std::vector<int32_t>(static_cast<std::size_t>(nodes))};
  for (int64_t p = 0; p < nodes; ++p) {
    axis.low[static_cast<std::size_t>(p)] = static_cast<int32_t>(std::max<int64_t>(0, p - radius));
    axis.high[static_cast<std::size_t>(p)] = static_cast<int32_t>(std::min(nodes - 1, p + radius));
  }
  return axis;
}

// Elements of order k cover nodes [k·e, k·e + k]: a node shared by two
// elements (p a multiple of k) reaches k nodes each way, a node inside one
// element only that element's nodes.
AxisCoupling element_axis(int64_t elements, int64_t order) {
  const int64_t nodes = order * elements + 1;
  AxisCoupling axis{std::vector<int32_t>(static_cast<std::size_t>(nodes)),
                    std::vector<int32_t>(static_cast<std::size_t>(nodes))};
  for (int64_t p = 0; p < nodes; ++p) {
    const int64_t first = p % order == 0 ? std::max<int64_t>(0, p - order) : p / order * order;
    const int64_t last = p % order == 0 ? std::min(nodes - 1, p + order) : p / order * order + order;
    axis.low[static_cast<std::size_t>(p)] = static_cast<int32_t>(first);
    axis.high[static_cast<std::size_t>(p)] = static_cast<int32_t>(last);
  }
  return axis;
}

// Every pair of distinct unknowns whose nodes are coupled, once (smaller id
// first). Two passes: count each node's edges, then fill each node's slice in
// parallel, so the output does not depend on the thread count.
EdgeList grid_edges(const std::array<AxisCoupling, 3>& axes, bool box, int64_t dofs) {
  const auto nx = static_cast<int64_t>(axes[0].low.size());
  const auto ny = static_cast<int64_t>(axes[1].low.size());
  const auto nz = static_cast<int64_t>(axes[2].low.size());
  const int64_t nodes = nx * ny * nz;
  // Coupled nodes with a larger id than node (x, y, z) (ids are z-major).
  const auto later_nodes = [&](int64_t x, int64_t y, int64_t z) {
    const int64_t cx = axes[0].high[static_cast<std::size_t>(x)] - axes[0].low[static_cast<std::size_t>(x)] + 1;
    const int64_t cy = axes[1].high[static_cast<std::size_t>(y)] - axes[1].low[static_cast<std::size_t>(y)] + 1;
    const int64_t after_x = axes[0].high[static_cast<std::size_t>(x)] - x;
    const int64_t after_y = axes[1].high[static_cast<std::size_t>(y)] - y;
    const int64_t after_z = axes[2].high[static_cast<std::size_t>(z)] - z;
    return box ? after_z * cy * cx + after_y * cx + after_x : after_z + after_y + after_x;
  };
  std::vector<int64_t> offset(static_cast<std::size_t>(nodes) + 1, 0);
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < nodes; ++v) {
    // dofs² per later node, plus the pairs among the node's own unknowns.
    offset[static_cast<std::size_t>(v) + 1] =
        dofs * dofs * later_nodes(v % nx, v / nx % ny, v / (nx * ny)) + dofs * (dofs - 1) / 2;
  }
  for (std::size_t v = 0; v < static_cast<std::size_t>(nodes); ++v) offset[v + 1] += offset[v];
  const int64_t count = offset.back();

  EdgeList edges = host_edge_list(nodes * dofs, count);
  int32_t* source = edges.source.data<int32_t>();
  int32_t* target = edges.target.data<int32_t>();
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < nodes; ++v) {
    const int64_t x = v % nx, y = v / nx % ny, z = v / (nx * ny);
    int64_t k = offset[static_cast<std::size_t>(v)];
    const auto link = [&](int64_t w) {  // every unknown of v with every unknown of w (> v)
      for (int64_t i = 0; i < dofs; ++i) {
        for (int64_t j = 0; j < dofs; ++j) {
          source[k] = static_cast<int32_t>(v * dofs + i);
          target[k++] = static_cast<int32_t>(w * dofs + j);
        }
      }
    };
    for (int64_t i = 0; i < dofs; ++i) {  // the node's own unknowns with each other
      for (int64_t j = i + 1; j < dofs; ++j) {
        source[k] = static_cast<int32_t>(v * dofs + i);
        target[k++] = static_cast<int32_t>(v * dofs + j);
      }
    }
    const int64_t x_low = axes[0].low[static_cast<std::size_t>(x)], x_high = axes[0].high[static_cast<std::size_t>(x)];
    const int64_t y_low = axes[1].low[static_cast<std::size_t>(y)], y_high = axes[1].high[static_cast<std::size_t>(y)];
    const int64_t z_high = axes[2].high[static_cast<std::size_t>(z)];
    if (box) {
      // Later nodes: the rest of row (y, z), the later rows of plane z, the later planes.
      for (int64_t u = x + 1; u <= x_high; ++u) link((z * ny + y) * nx + u);
      for (int64_t t = y + 1; t <= y_high; ++t) {
        for (int64_t u = x_low; u <= x_high; ++u) link((z * ny + t) * nx + u);
      }
      for (int64_t s = z + 1; s <= z_high; ++s) {
        for (int64_t t = y_low; t <= y_high; ++t) {
          for (int64_t u = x_low; u <= x_high; ++u) link((s * ny + t) * nx + u);
        }
      }
    } else {
      for (int64_t u = x + 1; u <= x_high; ++u) link((z * ny + y) * nx + u);
      for (int64_t t = y + 1; t <= y_high; ++t) link((z * ny + t) * nx + x);
      for (int64_t s = z + 1; s <= z_high; ++s) link((s * ny + y) * nx + x);
    }
  }
  return edges;
}

// Π sides · dofs, checked to fit int32 ids.
int64_t checked_unknowns(const std::array<int64_t, 3>& sides, int64_t dofs, const char* what) {
  int64_t unknowns = dofs;
  for (const int64_t side : sides) {
    unknowns *= side;
    SGNN_CHECK(unknowns < (int64_t{1} << 31), what, ": ", sides[0], " x ", sides[1], " x ", sides[2], " nodes x ", dofs,
               " unknowns reach 2^31 (node ids are int32)");
  }
  return unknowns;
}

}  // namespace

int64_t stencil_points(const StencilOptions& options) {
  int64_t dims = 0;
  for (const int64_t side : options.grid) dims += side > 1 ? 1 : 0;
  if (options.shape == StencilShape::Cross) return 1 + 2 * options.radius * dims;
  int64_t points = 1;
  for (int64_t d = 0; d < dims; ++d) points *= 2 * options.radius + 1;
  return points;
}

EdgeList generate_stencil(const StencilOptions& options) {
  for (const int64_t side : options.grid) {
    SGNN_CHECK(side >= 1 && side < (int64_t{1} << 31), "stencil: grid ", options.grid[0], " x ", options.grid[1], " x ",
               options.grid[2], " has a side out of range [1, 2^31) (1: an unused axis)");
  }
  SGNN_CHECK(options.radius >= 1 && options.radius < (int64_t{1} << 20), "stencil: radius ", options.radius,
             " out of range [1, 2^20)");
  checked_unknowns(options.grid, 1, "stencil");
  const std::array<AxisCoupling, 3> axes{stencil_axis(options.grid[0], options.radius),
                                         stencil_axis(options.grid[1], options.radius),
                                         stencil_axis(options.grid[2], options.radius)};
  return grid_edges(axes, options.shape == StencilShape::Box, 1);
}

int64_t fem_mesh_unknowns(const FemMeshOptions& options) {
  int64_t unknowns = options.dofs;
  for (const int64_t elements : options.elements) unknowns *= options.order * elements + 1;
  return unknowns;
}

EdgeList generate_fem_mesh(const FemMeshOptions& options) {
  SGNN_CHECK(options.order == 1 || options.order == 2, "FEM mesh: order ", options.order,
             " is not 1 (linear) or 2 (quadratic)");
  SGNN_CHECK(options.dofs >= 1 && options.dofs <= 3, "FEM mesh: dofs ", options.dofs, " per node outside [1, 3]");
  std::array<int64_t, 3> sides{};
  for (std::size_t a = 0; a < 3; ++a) {
    SGNN_CHECK(options.elements[a] >= 0 && options.elements[a] < (int64_t{1} << 31), "FEM mesh: elements ",
               options.elements[0], " x ", options.elements[1], " x ", options.elements[2],
               " has a count out of range [0, 2^31) (0: an unused axis)");
    sides[a] = options.order * options.elements[a] + 1;
  }
  checked_unknowns(sides, options.dofs, "FEM mesh");
  const std::array<AxisCoupling, 3> axes{element_axis(options.elements[0], options.order),
                                         element_axis(options.elements[1], options.order),
                                         element_axis(options.elements[2], options.order)};
  return grid_edges(axes, true, options.dofs);
}

}  // namespace sgnn::graph_io
