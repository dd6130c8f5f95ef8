#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/reordering.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/hrpb_graphs.hpp"
#include "tests/training/svg_checker.hpp"
#include "training/output/svg_graph.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

// Host CSR whose row r holds the columns of `entries` with that row.
Csr csr_of(int64_t n, const std::vector<std::pair<int32_t, int32_t>>& entries) {
  std::vector<int32_t> source, target;
  for (const auto& [row, col] : entries) {
    target.push_back(row);
    source.push_back(col);
  }
  return testing::weighted_graph(n, source, target, 1).csr;
}

// The number of `needle`s inside each <g class="panel"> of `svg`, in order.
std::vector<std::size_t> per_panel(const std::string& svg, const std::string& needle) {
  std::vector<std::size_t> counts;
  const std::string marker = "<g class=\"panel\">";
  for (std::size_t at = svg.find(marker); at != std::string::npos;) {
    const std::size_t next = svg.find(marker, at + marker.size());
    counts.push_back(testing::occurrences(svg.substr(at, next == std::string::npos ? std::string::npos : next - at),
                                          needle));
    at = next;
  }
  return counts;
}

void check_well_formed(const std::string& svg) {
  std::string problem;
  CHECK_MESSAGE(testing::well_formed_svg(svg, problem), problem);
}

}  // namespace

TEST_CASE("the pattern grid puts each non-zero in the cell of row·cells/rows, column·cells/cols") {
  // 10 nodes in 4 cells: rows 0-2 -> 0, 3-4 -> 1, 5-7 -> 2, 8-9 -> 3.
  const Csr csr = csr_of(10, {{0, 0}, {2, 1}, {1, 2}, {3, 0}, {9, 9}, {8, 5}, {7, 4}, {4, 7}});
  const DensityGrid grid = nonzero_pattern_grid(csr, 4);
  REQUIRE(grid.grid_rows == 4);
  REQUIRE(grid.grid_cols == 4);
  CHECK(grid.at(0, 0) == 3);
  CHECK(grid.at(1, 0) == 1);
  CHECK(grid.at(3, 3) == 1);
  CHECK(grid.at(3, 2) == 1);
  CHECK(grid.at(2, 1) == 1);
  CHECK(grid.at(1, 2) == 1);
  CHECK(grid.nonempty_cells() == 6);
  CHECK(std::accumulate(grid.values.begin(), grid.values.end(), 0.0) == 8);

  // Fewer rows than cells: one cell per row and column.
  const DensityGrid small = nonzero_pattern_grid(csr_of(3, {{2, 0}, {0, 2}}), 256);
  CHECK(small.grid_rows == 3);
  CHECK(small.at(2, 0) == 1);
  CHECK(small.at(0, 2) == 1);
  CHECK(small.nonempty_cells() == 2);
}

TEST_CASE("the pattern SVG is well-formed with one cell element per non-empty cell and panel") {
  const Csr a = csr_of(10, {{0, 0}, {2, 1}, {3, 0}, {9, 9}, {8, 5}});
  const Csr b = csr_of(10, {{0, 0}, {9, 0}});
  const std::string svg =
      nonzero_pattern_svg({{"original", nonzero_pattern_grid(a, 4)}, {"rcm <&>", nonzero_pattern_grid(b, 4)}},
                          "pattern of \"x\" & y");
  check_well_formed(svg);
  CHECK(per_panel(svg, "class=\"cell\"") == std::vector<std::size_t>{4, 2});
  CHECK(svg.find("rcm &lt;&amp;&gt;") != std::string::npos);
  CHECK(svg.find("pattern of &quot;x&quot; &amp; y") != std::string::npos);
  // An empty matrix draws a frame and no cells.
  const std::string empty = nonzero_pattern_svg({{"empty", nonzero_pattern_grid(csr_of(5, {}), 4)}}, "t");
  check_well_formed(empty);
  CHECK(per_panel(empty, "class=\"cell\"") == std::vector<std::size_t>{0});
}

TEST_CASE("RCM shrinks the pattern of a permuted banded graph back to a band") {
  // A band of half-width 2 on 200 nodes, node ids shuffled.
  constexpr int32_t n = 200;
  std::vector<int32_t> shuffle(n);
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::shuffle(shuffle.begin(), shuffle.end(), std::mt19937(7));
  std::vector<int32_t> source, target;
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = std::max(0, i - 2); j <= std::min(n - 1, i + 2); ++j) {
      source.push_back(shuffle[static_cast<std::size_t>(i)]);
      target.push_back(shuffle[static_cast<std::size_t>(j)]);
    }
  }
  graph_io::Dataset dataset;
  dataset.edges.num_nodes = n;
  dataset.edges.source = Tensor::from_vector(source, {static_cast<int64_t>(source.size())});
  dataset.edges.target = Tensor::from_vector(target, {static_cast<int64_t>(target.size())});
  const graph_io::PrepareOptions options;
  const Csr before = graph_io::prepare_adjacency(dataset.edges, options).csr;
  const graph_io::Dataset reordered =
      graph_io::reorder_dataset(dataset, graph_io::compute_node_order(dataset.edges, graph_io::Reordering::Rcm));
  const Csr after = graph_io::prepare_adjacency(reordered.edges, options).csr;

  CHECK(matrix_bandwidth(before) > 50);
  CHECK(matrix_bandwidth(after) <= 4);
  const DensityGrid grid_before = nonzero_pattern_grid(before, 20);
  const DensityGrid grid_after = nonzero_pattern_grid(after, 20);
  CHECK(grid_before.cell_bandwidth() > 5);
  CHECK(grid_after.cell_bandwidth() == 1);  // 10 rows per cell, band 2: only neighbouring cells
  CHECK(grid_after.nonempty_cells() < grid_before.nonempty_cells());
  CHECK(std::accumulate(grid_after.values.begin(), grid_after.values.end(), 0.0) == static_cast<double>(after.nnz));
}

TEST_CASE("bandwidth of a small matrix") {
  CHECK(matrix_bandwidth(csr_of(6, {{0, 0}, {1, 4}, {5, 2}})) == 3);
  CHECK(matrix_bandwidth(csr_of(6, {})) == 0);
}

TEST_CASE("the degree histogram has one bar per non-empty power-of-two bin") {
  // Row degrees 0, 1, 1, 2, 3, 4, 7, 8, 20: bins [1,2) 2, [2,4) 2, [4,8) 2, [8,16) 1, [16,32) 1.
  std::vector<std::pair<int32_t, int32_t>> entries;
  const std::vector<int32_t> degrees = {0, 1, 1, 2, 3, 4, 7, 8, 20};
  for (int32_t row = 0; row < static_cast<int32_t>(degrees.size()); ++row) {
    for (int32_t k = 0; k < degrees[static_cast<std::size_t>(row)]; ++k) entries.emplace_back(row, k);
  }
  const DegreeHistogram histogram = row_degree_histogram(csr_of(32, entries));
  // Rows 9..31 have degree 0 too.
  CHECK(histogram.zero_rows == 1 + 23);
  CHECK(histogram.counts == std::vector<int64_t>{2, 2, 2, 1, 1});

  // A gap: degrees 1 and 5 only -> bins 0 and 2, two bars.
  const DegreeHistogram gapped = row_degree_histogram(csr_of(6, {{0, 0}, {1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}}));
  CHECK(gapped.counts == std::vector<int64_t>{1, 0, 1});
  CHECK(gapped.nonempty_bins() == 2);
  const std::string svg = degree_histogram_svg(gapped, "degrees");
  check_well_formed(svg);
  CHECK(testing::occurrences(svg, "class=\"bar\"") == 2);
  const std::string full = degree_histogram_svg(histogram, "degrees");
  check_well_formed(full);
  CHECK(testing::occurrences(full, "class=\"bar\"") == 5);
  CHECK(testing::occurrences(full, "data-count=\"2\"") == 3);
  // No rows at all: a frame and no bars.
  const std::string none = degree_histogram_svg(row_degree_histogram(csr_of(3, {})), "degrees");
  check_well_formed(none);
  CHECK(testing::occurrences(none, "class=\"bar\"") == 0);
}

TEST_CASE("the HRPB density map holds non-zeros per brick at (row panel, block of the panel)") {
  // Panel 0 (rows 0-15): a full 16x4 brick at columns 0-3 -> block 0: 64 per brick.
  // Panel 1 (rows 16-31): row 20 has columns 0..16, 17 active columns -> block 0:
  //   columns 0-15 in 4 bricks of 4 (4 per brick); block 1: column 16 (1 per brick).
  // Panel 2 (rows 32-47): columns 5 and 40, compacted into one brick of 2 -> block 0.
  std::vector<std::pair<int32_t, int32_t>> entries;
  for (int32_t r = 0; r < 16; ++r) {
    for (int32_t c = 0; c < 4; ++c) entries.emplace_back(r, c);
  }
  for (int32_t c = 0; c <= 16; ++c) entries.emplace_back(20, c);
  entries.emplace_back(33, 5);
  entries.emplace_back(40, 40);
  const Csr csr = csr_of(48, entries);
  const Hrpb hrpb = graph_io::build_hrpb(csr, Tensor(), graph_io::HrpbOptions{});
  const DensityGrid grid = hrpb_brick_density_grid(hrpb, 256);
  REQUIRE(grid.grid_rows == 3);
  REQUIRE(grid.grid_cols == 2);
  CHECK(grid.at(0, 0) == 64);
  CHECK(grid.at(1, 0) == 4);
  CHECK(grid.at(1, 1) == 1);
  CHECK(grid.at(2, 0) == 2);
  CHECK(grid.nonempty_cells() == 4);

  // Binned to 2 rows: panels 0,1 -> row 0 (64 + 16 non-zeros in 1 + 4 bricks), panel 2 -> row 1.
  const DensityGrid binned = hrpb_brick_density_grid(hrpb, 2);
  REQUIRE(binned.grid_rows == 2);
  CHECK(binned.at(0, 0) == 16);
  CHECK(binned.at(0, 1) == 1);
  CHECK(binned.at(1, 0) == 2);
  CHECK(binned.nonempty_cells() == 3);

  const std::string svg = hrpb_density_svg({{"original", grid}, {"binned", binned}}, "HRPB");
  check_well_formed(svg);
  CHECK(per_panel(svg, "class=\"cell\"") == std::vector<std::size_t>{4, 3});
}

TEST_CASE("the HRPB density map's cell means weigh blocks by their bricks") {
  // One block of two bricks (row 0, columns 0-3 in the first, column 4 in the
  // second) -> 5 non-zeros / 2 bricks.
  const Csr csr = csr_of(16, {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}});
  const DensityGrid grid = hrpb_brick_density_grid(graph_io::build_hrpb(csr, Tensor(), {}), 256);
  REQUIRE(grid.grid_rows == 1);
  CHECK(grid.at(0, 0) == 2.5);
}

TEST_CASE("bad arguments and unwritable paths give clear errors and leave no file") {
  CHECK_THROWS_WITH_AS(nonzero_pattern_grid(csr_of(3, {}), 0), doctest::Contains("max_cells"), InvalidArgument);
  CHECK_THROWS_AS(nonzero_pattern_grid(csr_of(3, {}), 5000), InvalidArgument);
  CHECK_THROWS_WITH_AS(nonzero_pattern_svg({}, "t"), doctest::Contains("no panels"), InvalidArgument);

  testing::TempDir dir;
  CHECK_THROWS_WITH_AS(write_svg_file(dir / "missing-folder/x.svg", "<svg/>"),
                       doctest::Contains("missing-folder/x.svg"), IoError);
  std::filesystem::create_directory(dir / "a-folder");
  CHECK_THROWS_AS(write_svg_file(dir / "a-folder", "<svg/>"), IoError);  // a folder is in the way

  // A good write replaces the old file whole and leaves no temporary file.
  write_svg_file(dir / "p.svg", "<svg>old</svg>");
  write_svg_file(dir / "p.svg", "<svg>new</svg>");
  CHECK(testing::read_bytes(dir / "p.svg") == "<svg>new</svg>");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);  // p.svg and a-folder
}
