// sgnn_gen: writes a synthetic node-classification dataset in OGB's raw
// layout, readable by every program of this project and by PyG
// (bench/pyg_train.py), deterministic from --seed. The graph families are
// graph_io's generators (graph_io/generators/generators.hpp):
//
//   sgnn_gen --out data/sbm-10k --kind sbm --nodes 10000 --edges 100000
//            --symmetric --features 64 --classes 8 --seed 1 [--no-gzip]
//   sgnn_gen --out data/reddit-scale --preset reddit-scale --no-gzip
//   sgnn_gen --out data/papers100m-scale --preset papers100m-scale   (the processed format, no CSV)
//   sgnn_gen --out data/cl --kind chung-lu --nodes 232965 --degree 100 --exponent 3.0
//   sgnn_gen --out data/grid --kind stencil2d --grid 1024 --points 9
//   sgnn_gen --out data/mesh --kind fem3d --grid 20 --order 2 --dofs 3
//   sgnn_gen --out data/users-items --kind bipartite --sources 100000 --targets 20000 --edges 1000000
//   sgnn_gen --out data/hub --kind hub --nodes 2000000 --hub-degree 1000000 --degree 4
//   sgnn_gen --out data/sparse --kind sparse --nodes 1000000 --degree 2
//   sgnn_gen --out data/edge-features --kind edge-features --nodes 2000 --partners 4 --edge-features 8 --classes 4
// A --preset (graph_io/generators/synthetic_presets.hpp) fixes every option of the graph.
// A family's own options (--exponent, --grid, ...) are refused with another
// --kind. Classes: SBM's blocks (--classes sets their number); R-MAT's
// quadrant ranges; for the other families contiguous ranges of node ids
// (slabs of a grid; no graph signal where ids are shuffled: chung-lu, hub,
// sparse). A bipartite graph is written as one node set, sources [0, S) then
// targets [S, S + T), every edge source -> target. edge-features writes
// raw/edge-feat.csv too: labels that only the edge features carry
// (graph_io/generators/edge_feature_dataset.hpp), for GINE.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "graph_io/generators/edge_feature_dataset.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "graph_io/generators/synthetic_papers.hpp"
#include "graph_io/generators/synthetic_presets.hpp"

namespace {

namespace graph_io = sgnn::graph_io;

// The options of the families beyond SyntheticOptions (unset: the family's default).
struct FamilyFlags {
  double degree = 0;  // 0: the family's default
  double exponent = 2.5;
  double max_degree = 0;
  bool contiguous_blocks = false;
  std::vector<int64_t> grid;
  int64_t points = 0;  // 0: the cross stencil (5 points in 2D, 7 in 3D)
  int64_t order = 1;
  int64_t dofs = 1;
  int64_t sources = 1000;
  int64_t targets = 100;
  int64_t hub_degree = 1000;
  int64_t partners = 4;
  int64_t edge_features = 8;
};

// --grid N (every axis) or one value per axis of a `dims`-dimensional grid.
std::array<int64_t, 3> grid_sides(const std::vector<int64_t>& grid, std::size_t dims, int64_t fallback,
                                  int64_t unused) {
  std::array<int64_t, 3> sides{unused, unused, unused};
  if (grid.empty()) {
    for (std::size_t a = 0; a < dims; ++a) sides[a] = fallback;
  } else if (grid.size() == 1 || grid.size() == dims) {
    for (std::size_t a = 0; a < dims; ++a) sides[a] = grid[grid.size() == 1 ? 0 : a];
  } else {
    throw sgnn::InvalidArgument("--grid takes 1 or " + std::to_string(dims) + " values for a " + std::to_string(dims) +
                                "D grid, got " + std::to_string(grid.size()));
  }
  return sides;
}

graph_io::StencilOptions stencil_options(const FamilyFlags& f, std::size_t dims) {
  graph_io::StencilOptions options;
  options.grid = grid_sides(f.grid, dims, dims == 2 ? 64 : 16, 1);
  const int64_t cross = dims == 2 ? 5 : 7, box = dims == 2 ? 9 : 27;
  if (f.points != 0 && f.points != cross && f.points != box) {
    throw sgnn::InvalidArgument("--points " + std::to_string(f.points) + ": a " + std::to_string(dims) +
                                "D stencil has " + std::to_string(cross) + " or " + std::to_string(box) + " points");
  }
  options.shape = f.points == box ? graph_io::StencilShape::Box : graph_io::StencilShape::Cross;
  return options;
}

graph_io::Dataset generate(const std::string& kind, const FamilyFlags& f, const graph_io::SyntheticOptions& o) {
  if (kind == "edge-features") {
    return graph_io::generate_edge_feature_dataset({o.num_nodes, f.partners, o.num_features, f.edge_features,
                                                    o.num_classes, o.train_fraction, o.valid_fraction, o.seed});
  }
  if (kind == "rmat" || kind == "sbm") {
    if (kind == "rmat" || !f.contiguous_blocks) return graph_io::generate_synthetic_dataset(o);
    graph_io::SbmOptions sbm{o.num_nodes, o.num_classes, o.num_edges, o.homophily, true, o.seed};
    graph_io::SbmGraph graph = graph_io::generate_sbm(sbm);
    return graph_io::synthetic_dataset_from_graph(graph.edges, std::move(graph.blocks), o, kind);
  }
  graph_io::EdgeList edges;
  if (kind == "chung-lu") {
    const double degree = f.degree > 0 ? f.degree : 10.0;
    edges = graph_io::generate_chung_lu({o.num_nodes, degree, f.exponent, f.max_degree, o.seed});
  } else if (kind == "stencil2d" || kind == "stencil3d") {
    edges = graph_io::generate_stencil(stencil_options(f, kind == "stencil2d" ? 2 : 3));
  } else if (kind == "fem2d" || kind == "fem3d") {
    const std::size_t dims = kind == "fem2d" ? 2 : 3;
    edges = graph_io::generate_fem_mesh({grid_sides(f.grid, dims, dims == 2 ? 32 : 8, 0), f.order, f.dofs});
  } else if (kind == "bipartite") {
    edges = graph_io::generate_bipartite({f.sources, f.targets, o.num_edges, f.exponent, o.seed});
  } else if (kind == "hub") {
    edges = graph_io::generate_hub({o.num_nodes, f.hub_degree, f.degree > 0 ? f.degree : 4.0, o.seed});
  } else {
    edges = graph_io::generate_uniform_random({o.num_nodes, f.degree > 0 ? f.degree : 2.0, o.seed});
  }
  return graph_io::synthetic_dataset_from_graph(edges, graph_io::contiguous_classes(edges.num_nodes, o.num_classes), o,
                                                kind);
}

// The kinds each family option applies to; giving it with another kind is an error.
struct OptionScope {
  const char* option;
  std::vector<std::string> kinds;
};

const std::vector<OptionScope>& option_scopes() {
  static const std::vector<OptionScope> scopes{
      {"--nodes", {"rmat", "sbm", "chung-lu", "hub", "sparse", "edge-features"}},
      {"--symmetric",
       {"rmat", "sbm", "chung-lu", "stencil2d", "stencil3d", "fem2d", "fem3d", "bipartite", "hub", "sparse"}},
      {"--edges", {"rmat", "sbm", "bipartite"}},
      {"--homophily", {"sbm"}},
      {"--contiguous-blocks", {"sbm"}},
      {"--degree", {"chung-lu", "hub", "sparse"}},
      {"--exponent", {"chung-lu", "bipartite"}},
      {"--max-degree", {"chung-lu"}},
      {"--grid", {"stencil2d", "stencil3d", "fem2d", "fem3d"}},
      {"--points", {"stencil2d", "stencil3d"}},
      {"--order", {"fem2d", "fem3d"}},
      {"--dofs", {"fem2d", "fem3d"}},
      {"--sources", {"bipartite"}},
      {"--targets", {"bipartite"}},
      {"--hub-degree", {"hub"}},
      {"--partners", {"edge-features"}},
      {"--edge-features", {"edge-features"}},
  };
  return scopes;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write a synthetic graph dataset (R-MAT, SBM, Chung-Lu, stencils, FEM meshes, bipartite, hub or "
               "sparse random graphs) in OGB's raw layout"};
  std::string out;
  std::string kind = "sbm";
  graph_io::SyntheticOptions options;
  FamilyFlags family;
  std::string preset;
  double scale = 1.0;
  bool no_gzip = false;
  app.add_option("--out", out, "output folder (raw/ is created inside)")->required();
  std::vector<std::string> presets = graph_io::synthetic_preset_names();
  for (const std::string& name : graph_io::processed_preset_names()) presets.push_back(name);
  CLI::Option* preset_option =
      app.add_option("--preset", preset,
                     "a named benchmark graph; sets every option below (papers100m-scale is written straight into "
                     "the processed format, <out>/processed/dataset.sgnn: about 42 GB, and 43 GB of memory)")
          ->check(CLI::IsMember(presets));
  app.add_option("--scale", scale, "papers100m-scale only: every size divided by this (default 1)")
      ->check(CLI::Range(1.0, 1e6))
      ->needs(preset_option);
  app.add_option("--kind", kind,
                 "rmat (power-law degrees), sbm (planted classes), chung-lu (degree exponent), stencil2d, stencil3d, "
                 "fem2d, fem3d (element meshes), bipartite (sources -> targets), hub (one huge row), sparse (uniform "
                 "random), edge-features (labels carried by edge features only, raw/edge-feat.csv: for gine)")
      ->check(CLI::IsMember({"rmat", "sbm", "chung-lu", "stencil2d", "stencil3d", "fem2d", "fem3d", "bipartite", "hub",
                             "sparse", "edge-features"}));
  app.add_option("--nodes", options.num_nodes, "number of nodes")->check(CLI::Range(int64_t{1}, int64_t{2147483647}));
  app.add_option("--edges", options.num_edges, "edges drawn (per direction with --symmetric) before removing loops and repeats")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--symmetric", options.symmetric, "write every edge in both directions");
  app.add_option("--features", options.num_features, "feature width (0: no features)")->check(CLI::NonNegativeNumber);
  app.add_option("--classes", options.num_classes, "number of classes (sbm: of blocks)")->check(CLI::PositiveNumber);
  app.add_option("--homophily", options.homophily, "sbm: fraction of edges inside a class")->check(CLI::Range(0.0, 1.0));
  app.add_flag("--contiguous-blocks", family.contiguous_blocks,
               "sbm: number the nodes block by block (default: shuffled)");
  app.add_option("--degree", family.degree, "chung-lu, hub, sparse: average degree (default 10, 4, 2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--exponent", family.exponent, "chung-lu, bipartite: power-law degree exponent, > 2 (default 2.5)");
  app.add_option("--max-degree", family.max_degree, "chung-lu: cap on the expected degree (default: none)")
      ->check(CLI::PositiveNumber);
  app.add_option("--grid", family.grid,
                 "stencils: nodes per axis; fem: elements per axis (one value for every axis, or one per axis)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--points", family.points, "stencil2d: 5 or 9; stencil3d: 7 or 27 (default: 5 or 7)");
  app.add_option("--order", family.order, "fem: 1 (linear) or 2 (quadratic) elements")->check(CLI::Range(1, 2));
  app.add_option("--dofs", family.dofs, "fem: unknowns per mesh node, 1-3")->check(CLI::Range(1, 3));
  app.add_option("--sources", family.sources, "bipartite: source nodes (columns of the adjacency)")
      ->check(CLI::Range(int64_t{1}, int64_t{2147483647}));
  app.add_option("--targets", family.targets, "bipartite: target nodes (rows of the adjacency)")
      ->check(CLI::Range(int64_t{1}, int64_t{2147483647}));
  app.add_option("--hub-degree", family.hub_degree, "hub: the hub's distinct neighbours")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--partners", family.partners, "edge-features: edges drawn from each node (default 4)")
      ->check(CLI::PositiveNumber);
  app.add_option("--edge-features", family.edge_features,
                 "edge-features: features per edge, at least --classes (default 8)")
      ->check(CLI::PositiveNumber);
  app.add_option("--train-fraction", options.train_fraction, "share of nodes in the train split")->check(CLI::Range(0.0, 1.0));
  app.add_option("--valid-fraction", options.valid_fraction, "share of nodes in the valid split")->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", options.seed, "random seed");
  std::vector<std::string> graph_options{"--kind", "--features", "--classes", "--train-fraction", "--valid-fraction",
                                         "--seed"};
  for (const OptionScope& scope : option_scopes()) graph_options.emplace_back(scope.option);
  for (const std::string& name : graph_options) preset_option->excludes(app.get_option(name));
  app.add_flag("--no-gzip", no_gzip, "plain .csv files (faster to write and read for large graphs)");
  CLI11_PARSE(app, argc, argv);
  for (const OptionScope& scope : option_scopes()) {
    if (app.get_option(scope.option)->count() == 0 ||
        std::find(scope.kinds.begin(), scope.kinds.end(), kind) != scope.kinds.end()) {
      continue;
    }
    std::string kinds;
    for (const std::string& k : scope.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    std::fprintf(stderr, "sgnn_gen: %s does not apply to --kind %s (it applies to: %s)\n", scope.option, kind.c_str(),
                 kinds.c_str());
    return 1;
  }
  const std::vector<std::string> processed = graph_io::processed_preset_names();
  if (std::find(processed.begin(), processed.end(), preset) != processed.end()) {
    try {
      const auto started = std::chrono::steady_clock::now();
      const graph_io::Dataset dataset = graph_io::write_papers_scale(graph_io::scaled_papers_options(scale), out);
      std::printf("{\"out\": \"%s\", \"kind\": \"%s\", \"nodes\": %lld, \"edges\": %lld, \"features\": %lld, "
                  "\"classes\": %lld, \"file\": \"%s\", \"seconds\": %.3f}\n",
                  out.c_str(), preset.c_str(), static_cast<long long>(dataset.num_nodes()),
                  static_cast<long long>(dataset.csr.nnz), static_cast<long long>(dataset.features.size(1)),
                  static_cast<long long>(dataset.num_classes), dataset.load.processed_path.c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    } catch (const std::exception& error) {
      std::fprintf(stderr, "sgnn_gen: %s\n", error.what());
      return 1;
    }
    return 0;
  }
  if (app.get_option("--scale")->count() > 0) {
    std::fprintf(stderr, "sgnn_gen: --scale applies to --preset papers100m-scale only\n");
    return 1;
  }
  if (preset.empty()) {
    options.kind = kind == "rmat" ? graph_io::SyntheticKind::Rmat : graph_io::SyntheticKind::Sbm;
  } else {
    options = graph_io::synthetic_preset(preset);
    kind = options.kind == graph_io::SyntheticKind::Rmat ? "rmat" : "sbm";
  }

  try {
    const auto started = std::chrono::steady_clock::now();
    const graph_io::Dataset dataset = generate(kind, family, options);
    const auto generated = std::chrono::steady_clock::now();
    graph_io::write_ogb_dataset(dataset, out, {.gzip = !no_gzip});
    const auto written = std::chrono::steady_clock::now();
    std::printf("{\"out\": \"%s\", \"kind\": \"%s\", \"nodes\": %lld, \"edges\": %lld, \"features\": %lld, "
                "\"classes\": %lld, \"generate_s\": %.3f, \"write_s\": %.3f}\n",
                out.c_str(), kind.c_str(), static_cast<long long>(dataset.num_nodes()),
                static_cast<long long>(dataset.edges.num_edges()), static_cast<long long>(options.num_features),
                static_cast<long long>(dataset.num_classes),
                std::chrono::duration<double>(generated - started).count(),
                std::chrono::duration<double>(written - generated).count());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sgnn_gen: %s\n", error.what());
    return 1;
  }
  return 0;
}
