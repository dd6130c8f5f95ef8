#include "training/output/svg_graph.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "training/output/svg_document.hpp"

namespace sgnn::training {

namespace {

constexpr int64_t kMaxGridCells = 4096;
constexpr double kPanelSize = 360;  // pixels of a panel's longer side
constexpr double kPanelGap = 48;
constexpr double kTop = 56;
constexpr double kBottom = 56;

DensityGrid empty_grid(int64_t matrix_rows, int64_t matrix_cols, int64_t grid_rows, int64_t grid_cols) {
  DensityGrid grid;
  grid.matrix_rows = matrix_rows;
  grid.matrix_cols = matrix_cols;
  grid.grid_rows = grid_rows;
  grid.grid_cols = grid_cols;
  grid.values.assign(static_cast<std::size_t>(grid_rows * grid_cols), 0.0);
  return grid;
}

void check_max_cells(int64_t max_cells, const char* where) {
  SGNN_CHECK(max_cells >= 1 && max_cells <= kMaxGridCells, where, ": max_cells must be in [1, ", kMaxGridCells,
             "], got ", max_cells);
}

// Cell of index `i` among `extent` when `extent` items go into `cells` bins.
// Products fit in int64: extent < 2^31 and cells <= 4096.
int64_t bin_of(int64_t i, int64_t extent, int64_t cells) { return i * cells / extent; }

// Light blue to dark blue as t goes from 0 to 1.
std::string shade(double t) {
  t = std::clamp(t, 0.0, 1.0);
  auto channel = [t](int light, int dark) {
    return static_cast<int>(std::lround(light + (dark - light) * t));
  };
  char color[8];
  std::snprintf(color, sizeof color, "#%02x%02x%02x", channel(0xde, 0x08), channel(0xeb, 0x30),
                channel(0xf7, 0x6b));
  return color;
}

// `value` with `digits` significant digits ("%g" style).
std::string significant(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

}  // namespace

int64_t DensityGrid::nonempty_cells() const {
  return static_cast<int64_t>(std::count_if(values.begin(), values.end(), [](double v) { return v != 0.0; }));
}

int64_t DensityGrid::cell_bandwidth() const {
  int64_t widest = 0;
  for (int64_t r = 0; r < grid_rows; ++r) {
    for (int64_t c = 0; c < grid_cols; ++c) {
      if (at(r, c) != 0.0) widest = std::max(widest, std::abs(r - c));
    }
  }
  return widest;
}

int64_t DegreeHistogram::nonempty_bins() const {
  return static_cast<int64_t>(std::count_if(counts.begin(), counts.end(), [](int64_t c) { return c != 0; }));
}

DensityGrid nonzero_pattern_grid(const Csr& csr, int64_t max_cells) {
  check_max_cells(max_cells, "nonzero_pattern_grid");
  DensityGrid grid = empty_grid(csr.num_rows, csr.num_cols, std::min(max_cells, csr.num_rows),
                                std::min(max_cells, csr.num_cols));
  if (csr.nnz == 0) return grid;
  const std::vector<int64_t> lengths = csr.row_lengths();
  const std::vector<int32_t> columns = csr.indices.to_vector<int32_t>();
  std::size_t entry = 0;
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    const int64_t cell_row = bin_of(row, csr.num_rows, grid.grid_rows);
    for (int64_t k = 0; k < lengths[static_cast<std::size_t>(row)]; ++k, ++entry) {
      const int64_t cell_col = bin_of(columns[entry], csr.num_cols, grid.grid_cols);
      grid.values[static_cast<std::size_t>(cell_row * grid.grid_cols + cell_col)] += 1.0;
    }
  }
  return grid;
}

DensityGrid hrpb_brick_density_grid(const Hrpb& hrpb, int64_t max_cells) {
  check_max_cells(max_cells, "hrpb_brick_density_grid");
  const std::vector<int32_t> row_ptr =
      hrpb.num_panels > 0 ? hrpb.blocked_row_ptr.to_vector<int32_t>() : std::vector<int32_t>{0};
  int64_t widest_panel = 0;  // blocks
  for (std::size_t panel = 0; panel + 1 < row_ptr.size(); ++panel) {
    widest_panel = std::max<int64_t>(widest_panel, row_ptr[panel + 1] - row_ptr[panel]);
  }
  DensityGrid grid = empty_grid(hrpb.num_rows, hrpb.num_cols, std::min(max_cells, hrpb.num_panels),
                                std::min(max_cells, widest_panel));
  if (hrpb.num_blocks == 0) return grid;
  const std::vector<int64_t> size_ptr = hrpb.size_ptr.to_vector<int64_t>();
  const std::vector<int32_t> words = hrpb.packed_blocks.to_vector<int32_t>();
  std::vector<double> bricks_per_cell(grid.values.size(), 0.0);
  for (int64_t panel = 0; panel < hrpb.num_panels; ++panel) {
    const int64_t cell_row = bin_of(panel, hrpb.num_panels, grid.grid_rows);
    const int32_t first_block = row_ptr[static_cast<std::size_t>(panel)];
    for (int32_t block = first_block; block < row_ptr[static_cast<std::size_t>(panel) + 1]; ++block) {
      const int32_t* record = words.data() + size_ptr[static_cast<std::size_t>(block)];
      const int bricks = record[hrpb::kBrickColumns];
      const int32_t* patterns = record + hrpb::patterns_offset(bricks);
      int64_t nonzeros = 0;
      for (int k = 0; k < 2 * bricks; ++k) nonzeros += std::popcount(static_cast<uint32_t>(patterns[k]));
      const int64_t cell_col = bin_of(block - first_block, widest_panel, grid.grid_cols);
      const auto cell = static_cast<std::size_t>(cell_row * grid.grid_cols + cell_col);
      grid.values[cell] += static_cast<double>(nonzeros);
      bricks_per_cell[cell] += bricks;
    }
  }
  for (std::size_t cell = 0; cell < grid.values.size(); ++cell) {
    if (bricks_per_cell[cell] > 0) grid.values[cell] /= bricks_per_cell[cell];
  }
  return grid;
}

int64_t matrix_bandwidth(const Csr& csr) {
  const std::vector<int64_t> lengths = csr.row_lengths();
  const std::vector<int32_t> columns = csr.nnz > 0 ? csr.indices.to_vector<int32_t>() : std::vector<int32_t>{};
  int64_t widest = 0;
  std::size_t entry = 0;
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t k = 0; k < lengths[static_cast<std::size_t>(row)]; ++k, ++entry) {
      widest = std::max(widest, std::abs(row - int64_t{columns[entry]}));
    }
  }
  return widest;
}

DegreeHistogram row_degree_histogram(const Csr& csr) {
  DegreeHistogram histogram;
  for (const int64_t degree : csr.row_lengths()) {
    if (degree == 0) {
      ++histogram.zero_rows;
      continue;
    }
    const auto bin = static_cast<std::size_t>(std::bit_width(static_cast<uint64_t>(degree)) - 1);
    if (histogram.counts.size() <= bin) histogram.counts.resize(bin + 1, 0);
    ++histogram.counts[bin];
  }
  return histogram;
}

std::string density_panels_svg(const std::vector<DensityPanel>& panels, const std::string& title,
                               const std::string& value_label, bool log_scale, double max_value) {
  SGNN_CHECK(!panels.empty(), "density_panels_svg: no panels to draw");
  double largest = max_value;
  if (largest <= 0) {
    for (const DensityPanel& panel : panels) {
      for (const double v : panel.grid.values) largest = std::max(largest, v);
    }
  }
  std::string body = svg_text((static_cast<double>(panels.size()) * (kPanelSize + kPanelGap) + kPanelGap) / 2, 22,
                              title, "text-anchor=\"middle\" font-size=\"15\"");
  double left = kPanelGap;
  for (const DensityPanel& panel : panels) {
    const DensityGrid& grid = panel.grid;
    // Square cells for a square matrix; otherwise the cells stretch to fill the square panel.
    const double cell_width = kPanelSize / static_cast<double>(std::max<int64_t>(grid.grid_cols, 1));
    const double cell_height = kPanelSize / static_cast<double>(std::max<int64_t>(grid.grid_rows, 1));
    const double width = kPanelSize;
    const double height = kPanelSize;
    body += "<g class=\"panel\">\n";
    body += svg_text(left + width / 2, kTop - 10, panel.name, "text-anchor=\"middle\" font-size=\"13\"");
    // Cells at integer grid coordinates in a scaled group: a few bytes per cell.
    body += "<g transform=\"translate(" + svg_number(left) + " " + svg_number(kTop) + ") scale(" +
            significant(cell_width, 6) + " " + significant(cell_height, 6) + ")\" shape-rendering=\"crispEdges\">\n";
    for (int64_t r = 0; r < grid.grid_rows; ++r) {
      for (int64_t c = 0; c < grid.grid_cols; ++c) {
        const double value = grid.at(r, c);
        if (value == 0.0) continue;
        const double t = log_scale ? std::log1p(value) / std::log1p(largest) : value / largest;
        body += "<rect class=\"cell\" x=\"" + std::to_string(c) + "\" y=\"" + std::to_string(r) +
                "\" width=\"1\" height=\"1\" fill=\"" + shade(0.15 + 0.85 * t) + "\"/>\n";
      }
    }
    body += "</g>\n";
    body += svg_rect(left, kTop, width, height, "fill=\"none\" stroke=\"#888\"");
    body += svg_text(left + width / 2, kTop + height + 18,
                     std::to_string(grid.matrix_rows) + " × " + std::to_string(grid.matrix_cols) + " in " +
                         std::to_string(grid.grid_rows) + " × " + std::to_string(grid.grid_cols) + " cells",
                     "text-anchor=\"middle\" font-size=\"11\"");
    body += "</g>\n";
    left += kPanelSize + kPanelGap;
  }
  const double total_width = left;
  const double total_height = kTop + kPanelSize + kBottom;
  body += svg_rect(kPanelGap, total_height - 24, 12, 12, "fill=\"" + shade(0.15) + "\"");
  body += svg_rect(kPanelGap + 14, total_height - 24, 12, 12, "fill=\"" + shade(1.0) + "\"");
  body += svg_text(kPanelGap + 32, total_height - 14,
                   value_label + ": light = lowest, dark = " + significant(largest, 4) +
                       (log_scale ? " (log scale)" : ""),
                   "font-size=\"11\"");
  return svg_document(total_width, total_height, title, body);
}

std::string nonzero_pattern_svg(const std::vector<DensityPanel>& panels, const std::string& title) {
  return density_panels_svg(panels, title, "non-zeros per cell", true);
}

std::string hrpb_density_svg(const std::vector<DensityPanel>& panels, const std::string& title) {
  return density_panels_svg(panels, title, "non-zeros per active 16×4 brick (of 64); rows: row panels, columns: a panel's blocks in order",
                            false, 64.0);
}

std::string degree_histogram_svg(const DegreeHistogram& histogram, const std::string& title) {
  constexpr double kLeft = 64, kPlotWidth = 480, kPlotHeight = 280;
  const double bins = static_cast<double>(std::max<std::size_t>(histogram.counts.size(), 1));
  const double bar_width = kPlotWidth / bins;
  int64_t largest = 1;
  for (const int64_t count : histogram.counts) largest = std::max(largest, count);
  // log10 heights, shifted by one decade so a count of 1 still shows.
  const double decades = std::log10(static_cast<double>(largest)) + 1.0;
  auto height_of = [&](double count) { return (std::log10(count) + 1.0) / decades * kPlotHeight; };

  std::string body = svg_text(kLeft + kPlotWidth / 2, 22, title, "text-anchor=\"middle\" font-size=\"15\"");
  body += svg_rect(kLeft, kTop, kPlotWidth, kPlotHeight, "fill=\"none\" stroke=\"#888\"");
  for (std::size_t bin = 0; bin < histogram.counts.size(); ++bin) {
    const double x = kLeft + static_cast<double>(bin) * bar_width;
    if (histogram.counts[bin] > 0) {
      const double h = height_of(static_cast<double>(histogram.counts[bin]));
      body += svg_rect(x + 1, kTop + kPlotHeight - h, bar_width - 2, h,
                       "class=\"bar\" data-count=\"" + std::to_string(histogram.counts[bin]) + "\" fill=\"" +
                           shade(0.7) + "\"");
    }
    body += svg_text(x + bar_width / 2, kTop + kPlotHeight + 14, std::to_string(int64_t{1} << bin),
                     "text-anchor=\"middle\" font-size=\"9\"");
  }
  for (double power = 1; power <= static_cast<double>(largest); power *= 10) {
    body += svg_text(kLeft - 6, kTop + kPlotHeight - height_of(power) + 4, significant(power, 12),
                     "text-anchor=\"end\" font-size=\"10\"");
  }
  body += svg_text(kLeft + kPlotWidth / 2, kTop + kPlotHeight + 32,
                   "row degree (bins [2^k, 2^(k+1)), log scale); " + std::to_string(histogram.zero_rows) +
                       " rows of degree 0 not shown",
                   "text-anchor=\"middle\" font-size=\"11\"");
  body += svg_text(16, kTop + kPlotHeight / 2, "rows (log scale)",
                   "text-anchor=\"middle\" font-size=\"11\" transform=\"rotate(-90 16 " +
                       svg_number(kTop + kPlotHeight / 2) + ")\"");
  return svg_document(kLeft + kPlotWidth + 24, kTop + kPlotHeight + kBottom, title, body);
}

}  // namespace sgnn::training
