// The broad suite of generated graphs (issue 21), defined once for both CUDA
// benchmarks (bench_sparse, bench_hrpb): heavy-tailed Chung-Lu graphs of
// three degree exponents, community graphs (SBM) shuffled, with contiguous
// blocks and RCM-reordered, 2D/3D stencils, a band, FEM meshes of orders 1
// and 2 with 1-3 dofs per node, a rectangular (bipartite) adjacency, one hub
// row of a million entries, a very sparse graph (average degree 2) and short
// rows in random order (about 22 entries, held out).
// Every family comes from graph_io (graph_io/generators/generators.hpp), so
// `sgnn_gen --kind ...` with the same parameters and seed writes the same
// graphs as files.
//
// Square cases are the GCN adjacency (symmetrised, one self loop per node,
// D^-1/2 A D^-1/2); the bipartite case is its targets × sources block,
// row-normalised (mean over the sources: a rectangular matrix has no diagonal
// and no symmetric normalisation).
//
// Sizes: full cases fit an H100 one at a time (at most ~25M entries) and the
// suite runs in minutes; --quick cases have ~5-50K rows (the CPU-tier
// `bench_hrpb --statistics-only --quick` builds all of them on the host).
//
// HELD OUT. Cases with held_out = true must never be used to calibrate
// anything (dispatcher rules or thresholds, tile and subwarp choices, launch
// parameters): look at their numbers only to report them. Benchmarks print
// them in their own table, "held out (never used for calibration)". They were
// chosen before any of them was timed, each to test a different way of
// generalising:
//   - Chung-Lu γ = 2.5: the exponent between the calibration ones (2.1, 3.0),
//     at a third size: does a choice made on heavy tails interpolate?
//   - FEM meshes of order 2 (quadratic elements): rows of 25-375 entries in
//     dense dofs × dofs blocks, longer than any order-1 mesh or stencil: does
//     a choice made on stencils extrapolate to wider structured rows?
//   - SBM after RCM: the locality a real reordering gives, between the
//     shuffled and the contiguous-block orders that are calibrated on.
//   - bipartite: the only rectangular matrix (rows ≠ columns), with
//     heavy-tailed rows over uniformly spread columns.
//   - short rows in random order (added later, for issue 46): G(n, m) with
//     21 edge ends a node, i.e. rows of 22 entries on average with the self
//     loop (about 92% of them 15-30), whose columns are spread over the
//     whole graph. A peer's kernel (RoDe's SDDMM) was up to 1.4x faster than
//     ours on such graphs at width 32; chosen from that report, before we
//     timed this case.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/reordering.hpp"

namespace sgnn::bench {

struct SuiteCase {
  std::string name;    // says family and size; --graph filters on it
  std::string family;  // chung-lu, sbm, stencil2d, stencil3d, band, fem2d, fem3d, bipartite, hub, sparse, short-rows
  bool held_out = false;
  // Generates the graph and prepares it on `device` when the case's turn
  // comes (large graphs one at a time); with `edge_map` the adjacency also
  // maps its entries to Aᵀ's order (PrepareOptions::edge_map: what the
  // backward of an op on per-entry values needs, e.g. gatv2_aggregate's).
  std::function<Adjacency(Device, bool edge_map)> prepare;
  Adjacency adjacency(Device device, bool edge_map = false) const { return prepare(device, edge_map); }
};

namespace suite_detail {

inline SuiteCase square(std::string name, std::string family, bool held_out,
                        std::function<graph_io::EdgeList()> edges) {
  return {std::move(name), std::move(family), held_out,
          [edges = std::move(edges)](Device device, bool edge_map) {
            return gcn_adjacency(edges(), device, edge_map);
          }};
}

// 1234567 -> "1,234,567".
inline std::string thousands(int64_t n) {
  const std::string digits = std::to_string(n);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

inline SuiteCase chung_lu(int64_t nodes, double degree, double exponent, double max_degree, bool held_out) {
  char name[160];
  std::snprintf(name, sizeof name, "Chung-Lu γ=%.1f, %s nodes, degree %.0f%s", exponent, thousands(nodes).c_str(),
                degree, max_degree > 0 ? (", cap " + thousands(static_cast<int64_t>(max_degree))).c_str() : "");
  return square(name, "chung-lu", held_out, [=] {
    return graph_io::generate_chung_lu({nodes, degree, exponent, max_degree, 21});
  });
}

// The three orders of one SBM graph: shuffled, contiguous blocks, RCM of the shuffled one.
inline std::vector<SuiteCase> sbm(int64_t nodes, int64_t blocks, int64_t edges) {
  const std::string size =
      thousands(nodes) + " nodes, " + std::to_string(blocks) + " blocks, " + thousands(edges) + " edges drawn";
  const graph_io::SbmOptions options{nodes, blocks, edges, 0.8, false, 22};
  graph_io::SbmOptions contiguous = options;
  contiguous.contiguous_blocks = true;
  return {
      square("SBM shuffled, " + size, "sbm", false, [=] { return graph_io::generate_sbm(options).edges; }),
      square("SBM blocks contiguous, " + size, "sbm", false, [=] { return graph_io::generate_sbm(contiguous).edges; }),
      square("SBM shuffled then RCM, " + size, "sbm", true, [=] {
        graph_io::Dataset shuffled;
        shuffled.edges = graph_io::generate_sbm(options).edges;
        const Tensor order = graph_io::compute_node_order(shuffled.edges, graph_io::Reordering::Rcm);
        return graph_io::reorder_dataset(shuffled, order).edges;
      })};
}

inline SuiteCase stencil(int64_t side, int64_t dims, graph_io::StencilShape shape) {
  const graph_io::StencilOptions options{{side, side, dims == 3 ? side : 1}, 1, shape};
  const std::string name = "stencil " + std::to_string(dims) + "D " +
                           std::to_string(graph_io::stencil_points(options)) + "-point, " + std::to_string(side) + "^" +
                           std::to_string(dims) + " nodes";
  return square(name, "stencil" + std::to_string(dims) + "d", false,
                [=] { return graph_io::generate_stencil(options); });
}

inline SuiteCase fem(int64_t elements, int64_t dims, int64_t order, int64_t dofs, bool held_out) {
  const graph_io::FemMeshOptions options{{elements, elements, dims == 3 ? elements : 0}, order, dofs};
  const std::string name = std::string("FEM ") + std::to_string(dims) + "D " + (order == 1 ? "linear" : "quadratic") +
                           ", " + std::to_string(dofs) + " dof" + (dofs > 1 ? "s" : "") + "/node, " +
                           std::to_string(elements) + "^" + std::to_string(dims) + " elements";
  return square(name, "fem" + std::to_string(dims) + "d", held_out,
                [=] { return graph_io::generate_fem_mesh(options); });
}

inline SuiteCase bipartite(int64_t sources, int64_t targets, int64_t edges) {
  const graph_io::BipartiteOptions options{sources, targets, edges, 2.5, 23};
  const std::string name = "bipartite " + thousands(targets) + " x " + thousands(sources) + " (targets x sources), " +
                           thousands(edges) + " edges drawn, γ=2.5";
  return {name, "bipartite", true, [=](Device device, bool edge_map) {
            graph_io::PrepareOptions prepare;
            prepare.normalization = graph_io::Normalization::Row;
            prepare.device = device;
            prepare.edge_map = edge_map;
            return graph_io::prepare_bipartite_adjacency(graph_io::generate_bipartite(options), sources, prepare);
          }};
}

}  // namespace suite_detail

// The suite at full size, or at --quick size. Held-out cases are marked (see the file comment).
inline std::vector<SuiteCase> broad_suite(bool quick) {
  using namespace suite_detail;
  using graph_io::StencilShape;
  std::vector<SuiteCase> cases;
  // Heavy tails. γ=3.0 at Reddit's node count and degree: ~23.5M entries, largest row ~21.7K.
  cases.push_back(quick ? chung_lu(20000, 20, 2.1, 2000, false) : chung_lu(1000000, 20, 2.1, 50000, false));
  cases.push_back(quick ? chung_lu(20000, 40, 3.0, 0, false) : chung_lu(232965, 100, 3.0, 0, false));
  cases.push_back(quick ? chung_lu(30000, 20, 2.5, 3000, true) : chung_lu(500000, 40, 2.5, 30000, true));
  // Communities.
  for (SuiteCase& c : quick ? sbm(20000, 16, 200000) : sbm(500000, 64, 5000000)) cases.push_back(std::move(c));
  // Stencils and a band; the 2D 9-point one at ~1M rows.
  cases.push_back(stencil(quick ? 64 : 128, 2, StencilShape::Cross));
  cases.push_back(stencil(quick ? 128 : 1024, 2, StencilShape::Cross));
  cases.push_back(stencil(quick ? 128 : 1024, 2, StencilShape::Box));
  cases.push_back(stencil(quick ? 24 : 100, 3, StencilShape::Cross));
  cases.push_back(stencil(quick ? 24 : 64, 3, StencilShape::Box));
  const int64_t band_rows = quick ? 20000 : 200000;
  cases.push_back(square("band, half-width 8, " + thousands(band_rows) + " rows", "band", false, [=] {
    return graph_io::generate_stencil({{band_rows, 1, 1}, 8, StencilShape::Box});
  }));
  // FEM meshes: order 1 calibrates, order 2 is held out.
  cases.push_back(fem(quick ? 32 : 64, 2, 1, 1, false));
  cases.push_back(fem(quick ? 99 : 315, 2, 1, 2, false));
  cases.push_back(fem(quick ? 18 : 39, 3, 1, 3, false));
  cases.push_back(fem(quick ? 48 : 256, 2, 2, 2, true));
  cases.push_back(fem(quick ? 6 : 16, 3, 2, 3, true));
  // Rectangular, held out.
  cases.push_back(quick ? bipartite(40000, 8000, 200000) : bipartite(1000000, 200000, 10000000));
  // One hub row among small rows: 1M entries (+ its self loop) among 2M nodes of degree ~4.
  const int64_t hub_nodes = quick ? 40000 : 2000000, hub_degree = quick ? 20000 : 1000000;
  const std::string hub_name =
      "hub row of " + thousands(hub_degree) + " entries, " + thousands(hub_nodes) + " nodes of degree 4";
  cases.push_back(square(hub_name, "hub", false, [=] {
    return graph_io::generate_hub({hub_nodes, hub_degree, 4.0, 24});
  }));
  // Very sparse: average degree 2.
  const int64_t sparse_nodes = quick ? 50000 : 4000000;
  cases.push_back(square("uniform random, degree 2, " + thousands(sparse_nodes) + " nodes", "sparse", false, [=] {
    return graph_io::generate_uniform_random({sparse_nodes, 2.0, 25});
  }));
  // Short rows, no locality, held out. Its name avoids "degree": "degree 2" would select it.
  const int64_t short_row_nodes = quick ? 20000 : 1000000;
  cases.push_back(square("uniform random rows of ~22 entries (most 15-30), random ids, " +
                             thousands(short_row_nodes) + " nodes",
                         "short-rows", true, [=] {
                           return graph_io::generate_uniform_random({short_row_nodes, 21.0, 26});
                         }));
  return cases;
}

}  // namespace sgnn::bench
