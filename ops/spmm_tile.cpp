#include "ops/spmm_tile.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <mutex>

#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

std::mutex forced_mutex;
std::string forced_tile;
std::atomic<bool> tile_forced{false};

SpmmTile in_row_order(SpmmTile tile) {
  tile.by_row = true;
  return tile;
}

// The tile for a per-head feature width (DESIGN: launch plan per feature width).
// Widths of 256 floats and more take two float4 per lane (the per-entry loads
// of spmm_kernel.cuh): 128-wide tiles, twice the work items, ran 7.3 ms
// (0.87x cuSPARSE) at width 256 on a 31M-entry R-MAT (docs/kernels.md).
// bfloat16 rows are half as many bytes: one 16-byte access per lane covers
// 256 of them with 32 lanes.
SpmmTile heavy_rule_tile(int64_t features, bool vectorizable, DType dtype) {
  const int wide = vector_elements(dtype);
  if (vectorizable && features % wide == 0) {
    if (features >= 64 * wide) return {wide, 32, 2};
    return {wide, subwarp_lanes(features / wide), 1};
  }
  if (features <= 32) return {1, subwarp_lanes(features), 1};
  return {1, 32, 4};
}

// The heavy tiles for a width, the rule's first: 16-byte tiles of one, two
// and four accesses per lane, each with the fewest lanes that cover the row
// (more rows per warp and more loads in flight per lane as accesses grow);
// with several heads, also one access per lane across all heads of a row.
std::vector<SpmmTile> heavy_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype) {
  const int wide = vector_elements(dtype);
  std::vector<SpmmTile> tiles{heavy_rule_tile(features, vectorizable, dtype)};
  if (!vectorizable || features % wide != 0) return tiles;
  if (heads > 1) {
    SpmmTile across{wide, subwarp_lanes(heads * features / wide), 1};
    across.across_heads = true;
    tiles.push_back(across);
  }
  for (const int repeat : {1, 2, 4}) {
    const int64_t lanes = (features / wide + repeat - 1) / repeat;  // lanes for one row's 16-byte accesses
    const SpmmTile tile{wide, subwarp_lanes(lanes), repeat};
    const bool known = std::find(tiles.begin(), tiles.end(), tile) != tiles.end();
    // A tile over twice the row's width would leave most lanes idle.
    if (!known && spmm_tile_has_kernel(tile, dtype) && tile.width() < 2 * features + 4 * wide) tiles.push_back(tile);
  }
  // Slice-major 16-byte tiles of 16 and 32 lanes, where a row has at least
  // two slices. Narrower slices (4 and 8 lanes: 16 and 32 float columns, a
  // smaller part of B in L2 at a time) were timed on the SBM, Chung-Lu,
  // bipartite and hub graphs at widths 128 and 256 and never won by more
  // than 0.7% (4 lanes: 1.4-2x slower); they are not candidates (docs/kernels.md).
  for (const int lanes : {16, 32}) {
    const SpmmTile tile{wide, lanes, 1, true};
    if (tile.width() < features) tiles.push_back(tile);
  }
  // RoDe's shape at width 128 (8 lanes of two 16-byte accesses, slices of
  // 64 float columns); its light twin runs under 64 registers.
  const SpmmTile eight_lanes_twice{wide, 8, 2, true};
  if (dtype == DType::Float32 && eight_lanes_twice.width() < features) tiles.push_back(eight_lanes_twice);
  return tiles;
}

// `tile`'s light twins (spmm_kernel.cuh): for 16 and 32 lanes the one in 32
// registers; for 8 lanes of two accesses the one in 64; for 4 and 8 lanes of
// one access those in 40 and 64 (in 32 the 8-lane one spilled and ran
// 1.2-1.3x slower than in 40 on the 3D stencils at width 32; docs/kernels.md).
// Neither of 40 and 64 won everywhere: 40 on the stencils, 64 on short rows
// in random order, so both are timed. Each segment-major twin also comes with
// a subwarp for each item ("-items"): 5-7% faster on the 7-point 3D stencil at
// widths 32 and 64, 3-6% slower on the SBM graphs and rows of ~22 at 32
// (H200, docs/kernels.md), so timed. The plain 32-register twin comes first.
std::vector<SpmmTile> light_twins(SpmmTile tile, DType dtype) {
  std::vector<SpmmTile> twins;
  tile.light = true;
  for (const int registers : {32, 40, 64}) {
    tile.light_registers = registers;
    for (const bool item_grid : {false, true}) {
      tile.item_grid = item_grid;
      if (spmm_tile_has_kernel(tile, dtype)) twins.push_back(tile);
    }
  }
  return twins;
}

// Whether `twins` (light_twins) starts with the 32-register twin without
// "-items", which stands in for its heavy tile (16 and 32 lanes).
bool replaces_heavy(const std::vector<SpmmTile>& twins) {
  return !twins.empty() && twins.front().light_registers == 32 && !twins.front().item_grid;
}

}  // namespace

std::string spmm_tile_name(const SpmmTile& tile) {
  return "v" + std::to_string(tile.vec) + "s" + std::to_string(tile.sub) + "r" + std::to_string(tile.repeat) +
         (tile.across_heads ? "-heads" : "") + (tile.light ? "-light" : "") +
         (tile.light && tile.light_registers != 32 ? std::to_string(tile.light_registers) : "") +
         (tile.item_grid ? "-items" : "") +
         (tile.by_slice ? "-slices" : "") +
         (tile.by_row ? "-rows" : "");
}

// Every tile has a kernel: 16-byte tiles of 1, 2 or 4 accesses per lane
// (lanes 4-32 for 2 and 4 accesses), scalar tiles of one access (any lanes)
// or four (32 lanes); light tiles as light_twins says.
bool spmm_tile_has_kernel(const SpmmTile& tile, DType dtype) {
  const int wide = vector_elements(dtype);
  if (!tile.light && (tile.light_registers != 32 || tile.item_grid)) return false;  // one name per heavy tile
  if (tile.item_grid && tile.by_slice) return false;  // slice-major tiles launch a subwarp per item anyway
  if (tile.light) {  // float only: bfloat16's 8 sums a lane spilled under 32 registers
    if (dtype != DType::Float32 || tile.across_heads || tile.vec != wide) return false;
    if (tile.repeat == 2) return tile.sub == 8 && tile.light_registers == 64;
    const bool budget = tile.sub >= 16 ? tile.light_registers == 32
                                       : tile.sub >= 4 && (tile.light_registers == 40 || tile.light_registers == 64);
    return tile.repeat == 1 && budget;
  }
  if (tile.across_heads) return tile.vec == wide && tile.repeat == 1;
  if (tile.vec == wide) return tile.repeat == 1 || ((tile.repeat == 2 || tile.repeat == 4) && tile.sub >= 4);
  return tile.vec == 1 && (tile.repeat == 1 || (tile.repeat == 4 && tile.sub == 32));
}

// The rule takes a light twin in 32 registers (16 and 32 lanes), never one
// of the narrow tiles' twins, which the choice times against their heavy tile.
SpmmTile rule_spmm_tile(int64_t features, bool vectorizable, DType dtype, bool light_runs) {
  const SpmmTile heavy = heavy_rule_tile(features, vectorizable, dtype);
  if (!light_runs) return heavy;
  const std::vector<SpmmTile> twins = light_twins(heavy, dtype);
  return replaces_heavy(twins) ? twins.front() : heavy;
}

// The heavy tiles, where the graph lets light tiles run (else a light tile
// runs its heavy twin, and timing it would time that twice) each replaced by
// its light twin in 32 registers, or joined by its twins in 40 and 64; the
// "-items" twins join either way. The
// heavy twin of a 32-register tile is not timed: the same sums in the same
// order, and on 24 cases of the suite's graphs at widths 32-256 it was never
// faster than the fastest of the others by more than 0.1% (docs/kernels.md),
// while timing it cost two launches a width. The narrow tiles' heavy twin
// is still timed: on one of 19 suite cases at width 32 (the quadratic 3D FEM
// matrix) it beat both light ones (H200, RESULTS peer-rode).
std::vector<SpmmTile> candidate_spmm_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype,
                                           bool light_runs) {
  std::vector<SpmmTile> tiles = heavy_tiles(heads, features, vectorizable, dtype);
  if (!light_runs) return tiles;
  const std::size_t heavy = tiles.size();
  for (std::size_t i = 0; i < heavy; ++i) {
    const std::vector<SpmmTile> twins = light_twins(tiles[i], dtype);
    const bool replaced = replaces_heavy(twins);
    if (replaced) tiles[i] = twins.front();
    tiles.insert(tiles.end(), twins.begin() + (replaced ? 1 : 0), twins.end());
  }
  return tiles;
}

// The heavy tiles and the light twins, each in both segment orders.
std::vector<SpmmTile> all_spmm_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype) {
  std::vector<SpmmTile> tiles = heavy_tiles(heads, features, vectorizable, dtype);
  std::size_t count = tiles.size();
  for (std::size_t i = 0; i < count; ++i) {
    const std::vector<SpmmTile> twins = light_twins(tiles[i], dtype);
    tiles.insert(tiles.end(), twins.begin(), twins.end());
  }
  count = tiles.size();
  for (std::size_t i = 0; i < count; ++i) tiles.push_back(in_row_order(tiles[i]));
  return tiles;
}

std::optional<SpmmTile> parse_spmm_tile(std::string_view name, int64_t heads, int64_t features, bool vectorizable,
                                        DType dtype) {
  SpmmTile tile{};
  // "v<vec>s<sub>r<repeat>": each letter, then a number.
  const auto number_after = [&](char letter, int& value) {
    if (name.empty() || name.front() != letter) return false;
    const auto [end, error] = std::from_chars(name.data() + 1, name.data() + name.size(), value);
    if (error != std::errc() || end == name.data() + 1) return false;
    name.remove_prefix(static_cast<std::size_t>(end - name.data()));
    return true;
  };
  if (!number_after('v', tile.vec) || !number_after('s', tile.sub) || !number_after('r', tile.repeat)) {
    return std::nullopt;
  }
  const auto take = [&](std::string_view suffix) {
    if (!name.starts_with(suffix)) return false;
    name.remove_prefix(suffix.size());
    return true;
  };
  tile.across_heads = take("-heads");
  tile.light = take("-light");
  // A light tile's register budget other than 32 follows "-light": "-light40".
  if (tile.light && !name.empty() && name.front() != '-') {
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), tile.light_registers);
    if (error != std::errc() || tile.light_registers == 32) return std::nullopt;  // 32 is plain "-light"
    name.remove_prefix(static_cast<std::size_t>(end - name.data()));
  }
  tile.item_grid = take("-items");
  tile.by_slice = take("-slices");
  tile.by_row = take("-rows");
  if (!name.empty()) return std::nullopt;
  const int wide = vector_elements(dtype);
  const bool lanes_ok = tile.sub >= 1 && tile.sub <= 32 && (tile.sub & (tile.sub - 1)) == 0;
  const bool vec_ok = tile.vec == 1 || (tile.vec == wide && vectorizable && features % wide == 0);
  if (!lanes_ok || !vec_ok || !spmm_tile_has_kernel(tile, dtype) || (tile.across_heads && heads < 2)) {
    return std::nullopt;
  }
  return tile;
}

std::vector<std::string> spmm_tile_names(int64_t features, bool vectorizable, DType dtype, int64_t heads) {
  std::vector<std::string> names;
  for (const SpmmTile& tile : all_spmm_tiles(heads, features, vectorizable, dtype)) names.push_back(spmm_tile_name(tile));
  return names;
}

bool light_spmm_tiles_fit(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features,
                          int64_t narrowest_tile) {
  // The light tiles' 32-bit counting, with room for the steps past an end.
  const int64_t width = heads * features;
  const int64_t most_items = std::max(plan.segments, plan.split_segments + plan.num_rows) * heads *
                             ((features + narrowest_tile - 1) / narrowest_tile);
  return csr.nnz < kLightTileCountBound && std::max(csr.num_rows, csr.num_cols) * width < kLightTileCountBound &&
         plan.split_segments * width < kLightTileCountBound && most_items < kLightTileCountBound;
}

void force_spmm_tile(const std::string& name) {
  const std::lock_guard<std::mutex> lock(forced_mutex);
  forced_tile = name;
  tile_forced.store(!name.empty(), std::memory_order_relaxed);
}

std::string forced_spmm_tile() {
  const std::lock_guard<std::mutex> lock(forced_mutex);
  return forced_tile;
}

bool spmm_tile_forced() { return tile_forced.load(std::memory_order_relaxed); }

}  // namespace sgnn::ops
