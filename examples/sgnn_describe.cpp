// sgnn_describe: what a dataset holds, before training on it, in numbers and
// (optionally) pictures.
//
//   sgnn_describe cora            (a name searched as train_gcn does)
//   sgnn_describe path/to/graph.mtx
//   sgnn_describe cora --pattern pattern.svg --reorder rcm,degree --degrees degrees.svg
//                 --hrpb-density hrpb.svg [--cells 256] [--symmetrize]
// Prints where it was read from, node/edge/feature/class/split counts, degree
// statistics, self loops, repeats, symmetry and connected components; the
// matrix bandwidth per ordering; and writes standalone SVGs (each atomically:
// a failed run leaves no partial file).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph_io/csr_edges.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/graph_statistics.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/reordering.hpp"
#include "training/output/svg_graph.hpp"

using namespace sgnn;

namespace {

struct Options {
  std::string dataset;
  std::string pattern_svg, degrees_svg, hrpb_svg;
  std::vector<std::string> reorderings;
  int64_t cells = 256;
  bool symmetrize = false;
};

// Fails before any work when an output's folder does not exist (the write
// itself is atomic and reports every other problem).
void check_output_folder(const std::string& path, const char* flag) {
  if (path.empty()) return;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    throw IoError(path, 0, detail::concat(flag, ": the folder ", parent.string(), " does not exist"));
  }
}

// The matrix the pictures show: A[target, source] as stored (duplicates
// merged), or with --symmetrize the pattern GCN and GAT multiply (A + Aᵀ with
// self loops).
Csr matrix_of(const graph_io::EdgeList& edges, bool symmetrize) {
  graph_io::PrepareOptions prepare;
  if (symmetrize) prepare = graph_io::gcn_graph_options().prepare;
  prepare.normalization = graph_io::Normalization::None;
  prepare.device = Device::cpu();
  return graph_io::prepare_adjacency(edges, prepare).csr;
}

void print_counts(const graph_io::Dataset& d) {
  auto count = [](const Tensor& t) { return t.defined() ? t.numel() : int64_t{0}; };
  std::printf("dataset: %s\nsource: %s\nread: %.1f ms\n", d.name.c_str(), d.source.c_str(), d.read_ms);
  std::printf("features: %lld per node\nclasses: %lld\nsplits: train %lld, valid %lld, test %lld\n",
              static_cast<long long>(d.features.defined() ? d.features.size(1) : 0),
              static_cast<long long>(d.num_classes), static_cast<long long>(count(d.train_index)),
              static_cast<long long>(count(d.valid_index)), static_cast<long long>(count(d.test_index)));
  std::printf("%s", graph_io::format_statistics(graph_io::describe_graph(d.edges)).c_str());
}

void draw_pictures(const graph_io::Dataset& dataset, const Options& options,
                   const std::vector<graph_io::Reordering>& orderings) {
  std::vector<training::DensityPanel> patterns, bricks;
  for (const graph_io::Reordering ordering : orderings) {
    const graph_io::EdgeList edges =
        ordering == graph_io::Reordering::None
            ? dataset.edges
            : graph_io::reorder_dataset(dataset, graph_io::compute_node_order(dataset.edges, ordering)).edges;
    const Csr matrix = matrix_of(edges, options.symmetrize);
    const int64_t bandwidth = training::matrix_bandwidth(matrix);
    const std::string name = ordering == graph_io::Reordering::None ? "original" : graph_io::reordering_name(ordering);
    std::printf("bandwidth (%s order): %lld\n", name.c_str(), static_cast<long long>(bandwidth));
    const std::string label = name + ", bandwidth " + std::to_string(bandwidth);
    if (!options.pattern_svg.empty()) {
      patterns.push_back({label, training::nonzero_pattern_grid(matrix, options.cells)});
    }
    if (!options.hrpb_svg.empty()) {
      const Hrpb hrpb = graph_io::build_hrpb(matrix, Tensor(), graph_io::HrpbOptions{});
      std::printf("HRPB (%s order): %s\n", name.c_str(), hrpb.statistics.describe().c_str());
      bricks.push_back({name + ", " + detail::concat(hrpb.statistics.nnz_per_brick()) + " non-zeros per brick",
                        training::hrpb_brick_density_grid(hrpb, options.cells)});
    }
    if (!options.degrees_svg.empty() && ordering == graph_io::Reordering::None) {
      training::write_svg_file(options.degrees_svg,
                               training::degree_histogram_svg(training::row_degree_histogram(matrix),
                                                              "row degrees of " + dataset.name));
      std::printf("wrote %s\n", options.degrees_svg.c_str());
    }
  }
  if (!patterns.empty()) {
    training::write_svg_file(options.pattern_svg,
                             training::nonzero_pattern_svg(patterns, "non-zero pattern of " + dataset.name));
    std::printf("wrote %s\n", options.pattern_svg.c_str());
  }
  if (!bricks.empty()) {
    training::write_svg_file(options.hrpb_svg,
                             training::hrpb_density_svg(bricks, "HRPB brick density of " + dataset.name));
    std::printf("wrote %s\n", options.hrpb_svg.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Describe a graph dataset (OGB raw-layout folder, edge list or Matrix Market file)"};
  Options options;
  app.add_option("dataset", options.dataset, "dataset name or path")->required();
  app.add_option("--pattern", options.pattern_svg,
                 "write the adjacency's non-zero pattern as an SVG density image (one panel per ordering: "
                 "the original and each --reorder)");
  app.add_option("--reorder", options.reorderings,
                 "orderings to draw and measure besides the original: rcm, degree (comma-separated)")
      ->delimiter(',');
  app.add_option("--degrees", options.degrees_svg, "write the row degree distribution as a log-log histogram SVG");
  app.add_option("--hrpb-density", options.hrpb_svg,
                 "write the HRPB brick-density map (non-zeros per active 16x4 brick; rows: row panels, columns: "
                 "each panel's blocks of 16 compacted columns) as "
                 "an SVG, one panel per ordering");
  app.add_option("--cells", options.cells, "grid cells per side of the density images, 1 to 4096 (default 256)");
  app.add_flag("--symmetrize", options.symmetrize,
               "draw A + A^T with self loops (what GCN and GAT multiply) instead of the edges as stored");
  CLI11_PARSE(app, argc, argv);
  try {
    // Every flag is checked before the (possibly long) load.
    std::vector<graph_io::Reordering> orderings = {graph_io::Reordering::None};
    for (const std::string& name : options.reorderings) {
      try {
        const graph_io::Reordering ordering = graph_io::parse_reordering(name);
        if (ordering != graph_io::Reordering::None) orderings.push_back(ordering);
      } catch (const InvalidArgument& error) {
        throw InvalidArgument(detail::concat("--reorder: ", error.what()));
      }
    }
    SGNN_CHECK(options.cells >= 1 && options.cells <= 4096, "--cells must be in [1, 4096], got ", options.cells);
    check_output_folder(options.pattern_svg, "--pattern");
    check_output_folder(options.degrees_svg, "--degrees");
    check_output_folder(options.hrpb_svg, "--hrpb-density");

    graph_io::Dataset dataset = graph_io::load_dataset(options.dataset);
    // A dataset stored as a CSR only (the papers100M-scale preset) is described from its entries.
    if (dataset.edges.num_edges() == 0 && dataset.csr.indices.defined()) dataset.edges = graph_io::edges_of_csr(dataset.csr);
    print_counts(dataset);
    const bool pictures = !options.pattern_svg.empty() || !options.degrees_svg.empty() || !options.hrpb_svg.empty();
    if (pictures || orderings.size() > 1) draw_pictures(dataset, options, orderings);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sgnn_describe: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
