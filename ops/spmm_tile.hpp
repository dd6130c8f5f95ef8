// The tiles of the CSR SpMM kernel (ops/cuda/spmm.cu): how many elements a
// lane loads per access (one 16-byte access: 4 floats or 8 bfloat16s; or 1),
// how many lanes share a row's features, how many accesses a lane makes per
// entry. Named "v<vec>s<lanes>r<accesses>", e.g. "v4s32r1" (one float4 per
// lane, 32 lanes: a 128-wide float row per subwarp), "v8s16r1" (8 bfloat16s
// per lane, 16 lanes: a 128-wide bfloat16 row). "-heads" after a name: one
// subwarp covers every head of a row (heads × width), each lane inside one
// head, instead of a subwarp per head ("v8s8r1-heads": GAT's 8 heads of 8
// bfloat16s, a lane per head). "-light" (float32, one access, 16 or 32
// lanes): the same sums in 32 registers, one entry staged per lane, so twice
// the warps fit an SM; "-light40" and "-light64" (4 and 8 lanes): the same
// kernel under 40 or 64 registers ("v4s8r2-light64-slices": two accesses a
// lane, RoDe's shape at width 128). "-items" after a light tile's budget: a
// subwarp for each work item, blocks started in item order (GE-SpMM's grid),
// instead of a few waves of blocks striding over the items (slice-major
// tiles always launch so). "-slices" after a name: the
// work runs one feature slice of every row at a time instead of all slices of
// a row side by side (kinder to L2 when the dense operand is larger than it).
// "-rows": the work items in row order instead of longest row first.
// Which tile runs is decided by ops/spmm_choice.hpp (timed per graph and
// width where that pays, else the rule by the width); every tile sums each
// output over the same entries in the same order, so the choice changes the
// speed, never the result. Host code: the lists below are what the choice
// times, and the CUDA backend launches the tile it is given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/csr.hpp"
#include "core/dtype.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

// One tile: `vec` elements per access (1, or vector_elements of B's dtype:
// one 16-byte access), `sub` lanes, `repeat` accesses per lane.
struct SpmmTile {
  int vec = 1;
  int sub = 32;
  int repeat = 1;
  bool by_slice = false;      // items slice-major (ops/cuda/spmm.cu's file comment)
  bool by_row = false;        // work items in row order (sparse_cuda::SegmentList)
  bool across_heads = false;  // an item covers every head of its segment
  bool light = false;         // the light kernel: one or two 16-byte accesses a lane, float32
  int light_registers = 32;   // the light kernel's register budget: 32 (16, 32 lanes), 40 or 64 (4, 8 lanes)
  bool item_grid = false;     // light, not by_slice: a subwarp for each item (sparse_cuda::item_blocks)
  int width() const { return vec * sub * repeat; }
  bool operator==(const SpmmTile&) const = default;
};

// What the CUDA backend of the CSR SpMM launches (ops/spmm_backend.hpp):
// `tile` on B as it is (direct), or, `padded`, on a copy of B whose per-head
// width is rounded up to the 16-byte vector with zero columns (the tile is
// then one of the padded width; C's real columns are copied back).
struct CsrSpmmLaunch {
  SpmmTile tile;
  bool padded = false;
  bool operator==(const CsrSpmmLaunch&) const = default;
};

std::string spmm_tile_name(const SpmmTile& tile);

// Whether the CUDA backend has a kernel for `tile` with B of `dtype`
// (ops/cuda/spmm_kernel.cuh launches exactly these).
bool spmm_tile_has_kernel(const SpmmTile& tile, DType dtype);

// The tiles for a per-head width, B's dtype (float32 or bfloat16;
// vectorizable: 16-byte accesses are possible, i.e. aligned operands and a
// width that is a multiple of 4 floats or 8 bfloat16s) and the head count.
// `light_runs`: light_spmm_tiles_fit on the graph.
//   rule_spmm_tile        what runs where nothing is timed
//   candidate_spmm_tiles  what the choice times, the rule's tile first
//   all_spmm_tiles        every tile there is (what a forced name may pick)
SpmmTile rule_spmm_tile(int64_t features, bool vectorizable, DType dtype, bool light_runs);
std::vector<SpmmTile> candidate_spmm_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype,
                                           bool light_runs);
std::vector<SpmmTile> all_spmm_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype);

// The tile a name (spmm_tile_name) stands for, when it has a kernel and suits the width.
std::optional<SpmmTile> parse_spmm_tile(std::string_view name, int64_t heads, int64_t features, bool vectorizable,
                                        DType dtype);

// The names of all_spmm_tiles (tests run every tile, bench_sparse compares them).
std::vector<std::string> spmm_tile_names(int64_t features, bool vectorizable, DType dtype = DType::Float32,
                                         int64_t heads = 1);

// Whether the light tiles may count in 32 bits on this graph at heads ×
// features (ops/cuda/spmm_kernel.cuh: every item, element offset of B and C
// and of the split rows' partials below 2^31, with room for the steps past
// an end); where not, a light tile runs its heavy twin. `narrowest_tile`:
// the fewest features a light item covers (the SpMM's 16; the Max/Min
// values-only kernel's light tiles start at 32).
bool light_spmm_tiles_fit(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features,
                          int64_t narrowest_tile = 16);
// The bound each of those counts stays below: 2^31 less room for the steps past an end.
inline constexpr int64_t kLightTileCountBound = (int64_t{1} << 31) - (int64_t{1} << 27);

// Forces a tile by name process-wide when it exists for the call's width
// ("padded": the zero-padded path with its chosen tile, where the width is
// off the vector; "" = back to the choice); tests run every tile,
// bench_sparse compares them.
void force_spmm_tile(const std::string& name);
std::string forced_spmm_tile();
// Whether a name is forced now (a check cheap enough for every call).
bool spmm_tile_forced();

class ScopedSpmmTile {
 public:
  explicit ScopedSpmmTile(const std::string& name) : previous_(forced_spmm_tile()) { force_spmm_tile(name); }
  ~ScopedSpmmTile() { force_spmm_tile(previous_); }
  ScopedSpmmTile(const ScopedSpmmTile&) = delete;
  ScopedSpmmTile& operator=(const ScopedSpmmTile&) = delete;

 private:
  std::string previous_;
};

}  // namespace sgnn::ops
