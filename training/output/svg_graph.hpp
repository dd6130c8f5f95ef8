// Pictures of a graph's sparse matrix as standalone SVG (sgnn_describe):
//   - the non-zero pattern as a density image (cuTeSpMM's Figure 1): the
//     matrix binned into a grid of at most max_cells × max_cells cells,
//     shade = non-zeros per cell (log scale), so 100M edges stay a small file;
//   - the row degree distribution as a log-log histogram;
//   - the HRPB brick-density map: the same kind of grid over (row panel,
//     block of the panel), shade = non-zeros per active 16×4 brick (1..64).
// Host computations on host (or device-copied) inputs; every function throws
// InvalidArgument on a bad argument.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/csr.hpp"
#include "core/hrpb.hpp"
#include "training/output/svg_document.hpp"  // write_svg_file writes these pictures

namespace sgnn::training {

// A matrix of matrix_rows × matrix_cols binned into grid_rows × grid_cols
// cells: matrix row r falls in cell row r · grid_rows / matrix_rows (integer
// division), and likewise for columns. values is row-major; 0 = empty cell.
struct DensityGrid {
  int64_t matrix_rows = 0, matrix_cols = 0;
  int64_t grid_rows = 0, grid_cols = 0;
  std::vector<double> values;

  double at(int64_t row, int64_t col) const { return values[static_cast<std::size_t>(row * grid_cols + col)]; }
  int64_t nonempty_cells() const;
  // The largest |cell row − cell column| over non-empty cells (the binned bandwidth).
  int64_t cell_bandwidth() const;
};

// Non-zeros of `csr` per cell; the grid has min(max_cells, rows) × min(max_cells, cols) cells.
// max_cells in [1, 4096].
DensityGrid nonzero_pattern_grid(const Csr& csr, int64_t max_cells = 256);

// Mean non-zeros per active brick for each cell of (row panel, block index
// within the panel): HRPB compacts a panel's active columns, so block j of a
// panel holds its active columns 16j .. 16j + 15. The grid has
// min(max_cells, panels) × min(max_cells, most blocks in a panel) cells.
DensityGrid hrpb_brick_density_grid(const Hrpb& hrpb, int64_t max_cells = 256);

// The largest |row − column| over the non-zeros of `csr` (0 when empty).
int64_t matrix_bandwidth(const Csr& csr);

// Rows by non-zero count in power-of-two bins: counts[k] = rows whose degree
// d has 2^k <= d < 2^(k+1); counts ends at the last non-empty bin.
struct DegreeHistogram {
  int64_t zero_rows = 0;  // degree 0 (no place on a log axis; stated in the caption)
  std::vector<int64_t> counts;
  int64_t nonempty_bins() const;
};
DegreeHistogram row_degree_histogram(const Csr& csr);

// One panel of a density picture.
struct DensityPanel {
  std::string name;  // e.g. "original", "rcm"
  DensityGrid grid;
};

// Panels side by side, one <g class="panel"> each holding one
// <rect class="cell"> per non-empty cell. `log_scale`: shade by
// log(1 + value) / log(1 + max) (non-zero counts), else value / max_value
// (brick density); `value_label` names the shade in the legend.
// InvalidArgument when panels is empty.
std::string density_panels_svg(const std::vector<DensityPanel>& panels, const std::string& title,
                               const std::string& value_label, bool log_scale, double max_value = 0);

// The non-zero pattern before and after reordering (one panel each).
std::string nonzero_pattern_svg(const std::vector<DensityPanel>& panels, const std::string& title);

// HRPB brick-density maps, e.g. before and after reordering (shade:
// non-zeros per active brick, out of 64).
std::string hrpb_density_svg(const std::vector<DensityPanel>& panels, const std::string& title);

// One <rect class="bar"> per non-empty bin, log-scaled heights.
std::string degree_histogram_svg(const DegreeHistogram& histogram, const std::string& title);

}  // namespace sgnn::training
