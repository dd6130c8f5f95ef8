// CUDA SpMM after Sputnik (Gale et al. 2020, §V), for GNN shapes:
//  - 1-D tiling of the output: one subwarp of kSub lanes owns one
//    (row, head, feature tile) of C; small feature widths use narrow subwarps
//    so a warp works on several rows at once (subwarp tiling);
//  - work items are the plan's segments (ops/sparse_segments.hpp): rows cut
//    into pieces of at most segment_length entries, so a power-law hub row
//    is spread over many subwarps instead of serialising on a few lanes;
//    grid-stride over (segment, head, feature tile), so any size launches;
//  - items run segment-major (a row's feature tiles side by side) or, for
//    the "-slices" tiles, slice-major: every row's first feature tile, then
//    every row's second, … The warps running at one time then gather one
//    slice of B's columns, so a B too large for L2 is served from L2 a slice
//    at a time (GE-SpMM's grid order, Huang et al. SC'20); which order is
//    faster depends on B's size and the graph, so both are timed;
//  - an unsplit row's segment stores its output directly; segments of split
//    rows either atomicAdd into C (zeroed on the split rows just before; a
//    small kernel over the split-row list, cheaper than clearing all of C),
//    which makes those rows' summation order vary run to run, or, under
//    ops::set_deterministic(true), store partials into a [split segments,
//    width] workspace that a second kernel sums per row in segment order;
//  - each lane loads 4 consecutive column indices with one 128-bit load from
//    the row start rounded down to a multiple of 4 (reverse offset memory
//    alignment); entries outside the row are masked, loads past the row end
//    fall back to scalar loads;
//  - indices are pre-scaled to element offsets of B by the loading lane and
//    broadcast with shuffles;
//  - B and C are read and written 16 bytes per access (4 floats, 8
//    bfloat16s) when the per-head width is a multiple of that and the
//    pointers are 16-byte aligned, else with scalars; any width works
//    (feature residues are predicated);
//  - bfloat16 B and C (spmm_kernel.cuh, spmm_bf16.cu): loaded as float, summed
//    in float, each output rounded once; split rows always go through the
//    float partials (an atomic bfloat16 add would round at every segment),
//    so bfloat16 SpMM is deterministic in either mode.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ops/kernel_timer.hpp"
#include "ops/cuda/pad_features.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/cuda/spmm_kernel.cuh"
#include "ops/determinism.hpp"
#include "ops/sparse_offsets.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops {

namespace {

// Where the kernels' entry weights come from (spmm_backend.hpp): stored
// values, else the symmetric scale, else 1.
struct EdgeWeights {
  const float* values;
  const bfloat16* bf16_values;
  const double* symmetric_scale;
  const int32_t* value_map;  // entry e's values at value_map[e], or null
  bool average = false;      // each row's sum divided by its entry count (g-SpMM's Mean)
};

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;
using spmm_cuda::has_kernel;
using spmm_cuda::kWideVec;
using spmm_cuda::SpmmArguments;
using spmm_cuda::SpmmTile;

void launch_tile(const SpmmTile& tile, const SpmmArguments<float>& args, bool wide_index, Device device) {
  spmm_cuda::launch_tile_of<float>(tile, args, wide_index, device);
}
using spmm_cuda::launch_tile;

// Elements of `dtype` in one 16-byte access.
int wide_vec(DType dtype) { return dtype == DType::BFloat16 ? kWideVec<bfloat16> : kWideVec<float>; }

// The tile for a per-head feature width (DESIGN: launch plan per feature width).
// Widths of 256 floats and more take two float4 per lane (the per-entry loads
// of spmm_kernel.cuh): 128-wide tiles, twice the work items, ran 7.3 ms
// (0.87x cuSPARSE) at width 256 on a 31M-entry R-MAT (docs/kernels.md).
// bfloat16 rows are half as many bytes: one 16-byte access per lane covers
// 256 of them with 32 lanes.
SpmmTile choose_tile(int64_t features, bool vectorizable, DType dtype) {
  const int wide = wide_vec(dtype);
  if (vectorizable && features % wide == 0) {
    if (features >= 64 * wide) return {wide, 32, 2};
    return {wide, sparse_cuda::next_power_of_two(std::min<int64_t>(features / wide, 32), 32), 1};
  }
  if (features <= 32) return {1, sparse_cuda::next_power_of_two(features, 32), 1};
  return {1, 32, 4};
}

std::string tile_name(const SpmmTile& tile) {
  return "v" + std::to_string(tile.vec) + "s" + std::to_string(tile.sub) + "r" + std::to_string(tile.repeat) +
         (tile.across_heads ? "-heads" : "") + (tile.light ? "-light" : "") + (tile.by_slice ? "-slices" : "") +
         (tile.by_row ? "-rows" : "");
}

SpmmTile in_row_order(SpmmTile tile) {
  tile.by_row = true;
  return tile;
}

// The heavy tiles for a width, the rule's first: 16-byte tiles of one, two
// and four accesses per lane, each with the fewest lanes that cover the row
// (more rows per warp and more loads in flight per lane as accesses grow);
// with several heads, also one access per lane across all heads of a row.
std::vector<SpmmTile> heavy_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype) {
  const int wide = wide_vec(dtype);
  std::vector<SpmmTile> tiles{choose_tile(features, vectorizable, dtype)};
  if (!vectorizable || features % wide != 0) return tiles;
  if (heads > 1) {
    SpmmTile across{wide, sparse_cuda::next_power_of_two(std::min<int64_t>(heads * features / wide, 32), 32), 1};
    across.across_heads = true;
    tiles.push_back(across);
  }
  for (const int repeat : {1, 2, 4}) {
    const int64_t lanes = (features / wide + repeat - 1) / repeat;  // lanes for one row's 16-byte accesses
    const SpmmTile tile{wide, sparse_cuda::next_power_of_two(lanes, 32), repeat};
    const bool known = std::any_of(tiles.begin(), tiles.end(), [&](const SpmmTile& t) { return tile_name(t) == tile_name(tile); });
    // A tile over twice the row's width would leave most lanes idle.
    if (!known && has_kernel(tile, wide) && tile.width() < 2 * features + 4 * wide) tiles.push_back(tile);
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
  return tiles;
}

// `tile`'s light twin (spmm_kernel.cuh), where it has one.
std::optional<SpmmTile> light_twin(SpmmTile tile, DType dtype) {
  tile.light = true;
  if (!has_kernel(tile, wide_vec(dtype))) return std::nullopt;
  return tile;
}

// The tiles timed for a width: the heavy tiles, each replaced by its light
// twin where the graph lets light tiles run (SpmmArguments::int32_fits; else
// a light tile runs its heavy twin, and timing it would time that twice).
// The heavy twin of a light tile that runs is not timed: the same sums in
// the same order, and on 24 cases of the suite's graphs at widths 32-256 it
// was never faster than the fastest of the others by more than 0.1%
// (docs/kernels.md), while timing it cost two launches a width.
std::vector<SpmmTile> candidate_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype,
                                      bool light_runs) {
  std::vector<SpmmTile> tiles = heavy_tiles(heads, features, vectorizable, dtype);
  if (!light_runs) return tiles;
  for (SpmmTile& tile : tiles) {
    if (const std::optional<SpmmTile> light = light_twin(tile, dtype)) tile = *light;
  }
  return tiles;
}

// Every tile there is for the width (what a forced name may pick): the heavy
// tiles and the light twins, each in both segment orders.
std::vector<SpmmTile> all_tiles(int64_t heads, int64_t features, bool vectorizable, DType dtype) {
  std::vector<SpmmTile> tiles = heavy_tiles(heads, features, vectorizable, dtype);
  std::size_t count = tiles.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (const std::optional<SpmmTile> light = light_twin(tiles[i], dtype)) tiles.push_back(*light);
  }
  count = tiles.size();
  for (std::size_t i = 0; i < count; ++i) tiles.push_back(in_row_order(tiles[i]));
  return tiles;
}

// out[k, :] = in[map[k], :] in units of U: the widest of 16, 8, 4 or 2 bytes
// that divides an entry's row (8 heads of bfloat16: one 16-byte unit an
// entry, not eight 2-byte loads) and both base addresses.
template <typename U>
__global__ void gather_edges_kernel(Offsets map, const U* __restrict__ in, U* __restrict__ out, int64_t count,
                                    int64_t units) {
  const int64_t total = count * units;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / units;
    out[i] = in[map[k] * units + (i - k * units)];
  }
}

// C[split row, :] = 0 before the segments of split rows add into it (float C only).
__global__ void zero_split_rows_kernel(const int32_t* __restrict__ rows, int64_t count, int64_t width,
                                       float* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    c[int64_t{rows[k]} * width + (i - k * width)] = 0.0f;
  }
}

// The factor of a split row's sum: 1 / (its entry count) under `average`
// (g-SpMM's Mean), else 1.
__device__ __forceinline__ float split_row_factor(Offsets indptr, int32_t row, bool average) {
  return average ? 1.0f / static_cast<float>(indptr[int64_t{row} + 1] - indptr[row]) : 1.0f;
}

// C[split row k, j] = Σ partials[s, j] over the row's segments s in order,
// one thread per element (coalesced over j), summed in float and stored
// (rounded once for bfloat16); times 1 / (the row's entries) under `average`.
template <typename T>
__global__ void reduce_split_rows_kernel(const int32_t* __restrict__ rows, const int64_t* __restrict__ offsets,
                                         const float* __restrict__ partials, int64_t count, int64_t width,
                                         Offsets indptr, bool average, T* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    const int64_t j = i - k * width;
    float sum = 0.0f;
    for (int64_t s = offsets[k]; s < offsets[k + 1]; ++s) sum += partials[s * width + j];
    if (average) sum *= split_row_factor(indptr, rows[k], true);
    c[int64_t{rows[k]} * width + j] = store_as<T>(sum);
  }
}

// C[split row, :] /= the row's entry count after its segments added into C with atomics (float C, Mean).
__global__ void average_split_rows_kernel(const int32_t* __restrict__ rows, int64_t count, int64_t width,
                                          Offsets indptr, float* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    c[int64_t{rows[k]} * width + (i - k * width)] *= split_row_factor(indptr, rows[k], true);
  }
}

// The tile a name (tile_name) stands for, when it has a kernel and suits the width.
std::optional<SpmmTile> parse_tile(const std::string& name, int64_t heads, int64_t features, bool vectorizable,
                                   DType dtype) {
  const int wide = wide_vec(dtype);
  SpmmTile tile{};
  int length = 0;
  if (std::sscanf(name.c_str(), "v%ds%dr%d%n", &tile.vec, &tile.sub, &tile.repeat, &length) != 3) return std::nullopt;
  std::string tail = name.substr(static_cast<std::size_t>(length));
  const auto take = [&](const std::string& suffix) {
    if (!tail.starts_with(suffix)) return false;
    tail.erase(0, suffix.size());
    return true;
  };
  tile.across_heads = take("-heads");
  tile.light = take("-light");
  tile.by_slice = take("-slices");
  tile.by_row = take("-rows");
  if (!tail.empty()) return std::nullopt;
  const bool lanes_ok = tile.sub >= 1 && tile.sub <= 32 && (tile.sub & (tile.sub - 1)) == 0;
  const bool vec_ok = tile.vec == 1 || (tile.vec == wide && vectorizable && features % wide == 0);
  if (!lanes_ok || !vec_ok || !has_kernel(tile, wide) || (tile.across_heads && heads < 2)) return std::nullopt;
  return tile;
}

// The key of the tile choice: "spmm-tile:h<heads>:f<features>" for float32
// (the key stored caches already hold), "spmm-tile:bf16:h..." for bfloat16,
// ":scalar" appended when 16-byte accesses are impossible.
std::string tile_key(int64_t heads, int64_t features, bool vectorizable, DType dtype) {
  return std::string("spmm-tile:") + (dtype == DType::BFloat16 ? "bf16:" : "") + "h" + std::to_string(heads) +
         ":f" + std::to_string(features) + (vectorizable ? "" : ":scalar");
}

// The forced tile, else the graph's recorded choice, else timing (where it
// pays, ops/kernel_choices.hpp), else the rule. Every tile computes each
// output from the same entries in the same order: the choice changes speed
// only. Where it timed the tiles, the chosen one's time goes to `timed_ms`.
template <typename Run>
SpmmTile choose_spmm_tile(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, bool vectorizable,
                          DType dtype, bool light_runs, Device device, const Run& run, double& timed_ms) {
  const std::string forced = forced_spmm_tile();
  if (!forced.empty()) {
    for (const SpmmTile& tile : all_tiles(heads, features, vectorizable, dtype)) {
      if (tile_name(tile) == forced) return tile;
    }
  }
  const std::string key = tile_key(heads, features, vectorizable, dtype);
  // The recorded choice, read back from its name without listing the candidates (every call comes here).
  if (const std::optional<std::string> recorded = plan.choices->find(key)) {
    if (const std::optional<SpmmTile> tile = parse_tile(*recorded, heads, features, vectorizable, dtype)) return *tile;
  }
  const std::vector<SpmmTile> tiles = candidate_tiles(heads, features, vectorizable, dtype, light_runs);
  if (tiles.size() == 1 || !may_tune(csr, *plan.choices, stream_capturing(device))) return tiles.front();
  SpmmTile best = tiles.front(), runner_up = tiles.front();
  double best_ms = std::numeric_limits<double>::infinity(), runner_up_ms = best_ms;
  for (const SpmmTile& tile : tiles) {
    const double ms = candidate_ms(device, [&] { run(tile); }, key + " " + tile_name(tile), runner_up_ms);
    if (ms < best_ms) {
      runner_up = best;
      runner_up_ms = best_ms;
      best_ms = ms;
      best = tile;
    } else if (ms < runner_up_ms) {
      runner_up_ms = ms;
      runner_up = tile;
    }
  }
  // The order of the work items matters where the graph's numbering has
  // locality, and by how much depends on the tile: the two fastest are
  // timed again in row order (two candidates more, not twice as many). On
  // SBM after RCM at width 128 the light tile won in the plan's order and
  // the heavy one in row order, by 4% (docs/kernels.md).
  const SpmmTile winners[] = {best, runner_up};
  const int count = tiles.size() > 1 ? 2 : 1;
  for (int i = 0; i < count; ++i) {
    const SpmmTile by_row = in_row_order(winners[i]);
    const double ms = candidate_ms(device, [&] { run(by_row); }, key + " " + tile_name(by_row), best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = by_row;
    }
  }
  plan.choices->set(key, tile_name(best));
  timed_ms = best_ms;
  return best;
}

// C = A · B with the CSR kernel at this width. `whole_op`: this call is the
// whole SpMM op (not the inside of the padded path), so the tile choice's
// time may stand for the op's (ops/kernel_timer.hpp, report_chosen_ms).
template <typename T>
void spmm_direct_as(const Csr& csr, const EdgeWeights& weights, int64_t heads, int64_t features, const Tensor& b,
                    Tensor& c, bool whole_op) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  const DType dtype = kFloat ? DType::Float32 : DType::BFloat16;
  const Device device = b.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const int64_t width = heads * features;
  const bool split = plan->split_segments > 0;
  const bool ordered = split && (deterministic() || !kFloat);
  const Tensor partials = ordered ? Tensor::empty({plan->split_segments, width}, DType::Float32, device) : Tensor();
  const bool vectorizable = sparse_cuda::aligned16(b.raw_data()) && sparse_cuda::aligned16(c.raw_data()) &&
                            (!ordered || sparse_cuda::aligned16(partials.raw_data()));
  cudaStream_t stream = cuda::stream(device);
  const int32_t* split_rows = split ? plan->split_rows.data<int32_t>() : nullptr;
  SpmmArguments<T> args{offsets_of(csr.indptr),
                        csr.indices.data<int32_t>(),
                        weights.values,
                        sparse_cuda::segment_list(*plan, false),
                        ordered ? partials.data<float>() : nullptr,
                        static_cast<int>(heads),
                        features,
                        0,
                        sparse_cuda::aligned16(csr.indices.raw_data()),
                        b.data<T>(),
                        c.data<T>()};
  args.symmetric_scale = weights.symmetric_scale;
  args.bf16_values = weights.bf16_values;
  args.value_map = weights.value_map;
  args.average = weights.average;
  const bool wide_index = csr.num_cols * heads * features >= (int64_t{1} << 31);
  // The light tiles' 32-bit counting (spmm_kernel.cuh), with room for the
  // steps past an end; their narrowest tile is 64 wide.
  constexpr int64_t kInt32Room = (int64_t{1} << 31) - (int64_t{1} << 27);
  const int64_t most_items = std::max(plan->segments, plan->split_segments + plan->num_rows) * heads *
                             ((features + 63) / 64);
  args.int32_fits = csr.nnz < kInt32Room && std::max(csr.num_rows, csr.num_cols) * width < kInt32Room &&
                    plan->split_segments * width < kInt32Room && most_items < kInt32Room;
  const auto run = [&](const SpmmTile& tile) {
    const int64_t extent = tile.across_heads ? width : features;
    args.tiles = (extent + tile.width() - 1) / tile.width();
    args.slice_major = tile.by_slice;
    args.segments = sparse_cuda::segment_list(*plan, tile.by_row);
    if constexpr (kFloat) {
      if (split && !ordered) {  // the split rows are summed into C with atomics: cleared before every launch
        const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
        zero_split_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(split_rows, plan->num_split_rows, width,
                                                                           c.data<float>());
        SGNN_CUDA_CHECK_LAUNCH("zero_split_rows_kernel");
      }
    }
    launch_tile(tile, args, wide_index, device);
  };
  double timed_ms = std::numeric_limits<double>::infinity();
  run(choose_spmm_tile(csr, *plan, heads, features, vectorizable, dtype, args.int32_fits, device, run, timed_ms));
  // The tile's launches are the whole op unless split rows are summed in order or averaged after them.
  const bool after = ordered || (split && weights.average);
  if (whole_op && !after && timed_ms != std::numeric_limits<double>::infinity()) report_chosen_ms(timed_ms);
  if (ordered) {
    const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
    reduce_split_rows_kernel<T><<<shape.blocks, shape.threads, 0, stream>>>(
        split_rows, plan->split_offsets.data<int64_t>(), partials.data<float>(), plan->num_split_rows, width,
        offsets_of(csr.indptr), weights.average, c.data<T>());
    SGNN_CUDA_CHECK_LAUNCH("reduce_split_rows_kernel");
  } else if (split && weights.average) {
    if constexpr (kFloat) {
      const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
      average_split_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(split_rows, plan->num_split_rows, width,
                                                                           offsets_of(csr.indptr), c.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("average_split_rows_kernel");
    }
  }
}

// Widths that are not a multiple of the 16-byte vector (GCN's and GAT's
// class counts: 41 on Reddit) or operands not 16-byte aligned leave the CSR
// kernel to scalar loads: one load instruction per element, where bfloat16
// then saves bytes but no instructions. The padded path copies B into
// [n, heads, width rounded up to the vector] (zero columns), runs the
// vector kernel there and copies C's real columns back; the same sums in
// the same order, so the same results. Whether it pays (two small copies
// against the scalar loads) is timed per graph and width, key
// "spmm-padded:[bf16:]h<heads>:f<features>", values "padded" or "direct";
// force_spmm_tile("padded") forces it.
constexpr const char* kPaddedName = "padded";

template <typename T>
void spmm_padded_as(const Csr& csr, const EdgeWeights& weights, int64_t heads, int64_t features, const Tensor& b,
                    Tensor& c) {
  const int64_t padded = sparse_cuda::padded_width(features, kWideVec<T>);
  const Tensor b_padded = sparse_cuda::padded_features<T>(b, heads, features, padded);
  Tensor c_padded = Tensor::empty({c.size(0), heads, padded}, c.dtype(), b.device());
  spmm_direct_as<T>(csr, weights, heads, padded, b_padded, c_padded, /*whole_op=*/false);
  sparse_cuda::unpad_features<T>(c_padded, features, padded, c);
}

template <typename T>
void spmm_forward_as(const Csr& csr, const EdgeWeights& weights, int64_t heads, int64_t features, const Tensor& b,
                     Tensor& c) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  const bool vector_ready = features % kWideVec<T> == 0 && sparse_cuda::aligned16(b.raw_data()) &&
                            sparse_cuda::aligned16(c.raw_data());
  const std::string forced = forced_spmm_tile();
  if (vector_ready || (!forced.empty() && forced != kPaddedName)) {
    return spmm_direct_as<T>(csr, weights, heads, features, b, c, true);
  }
  if (forced == kPaddedName) return spmm_padded_as<T>(csr, weights, heads, features, b, c);
  const Device device = b.device();
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const std::string key = std::string("spmm-padded:") + (kFloat ? "" : "bf16:") + "h" + std::to_string(heads) + ":f" +
                          std::to_string(features);
  std::optional<std::string> choice = plan->choices->find(key);
  if (!choice && may_tune(csr, *plan->choices, stream_capturing(device))) {
    const bool padded = padded_path_faster(
        device, key, [&] { spmm_direct_as<T>(csr, weights, heads, features, b, c, true); },
        [&] { spmm_padded_as<T>(csr, weights, heads, features, b, c); });
    choice = padded ? kPaddedName : "direct";
    plan->choices->set(key, *choice);
  }
  if (choice == std::optional<std::string>(kPaddedName)) return spmm_padded_as<T>(csr, weights, heads, features, b, c);
  spmm_direct_as<T>(csr, weights, heads, features, b, c, true);
}

}  // namespace

std::vector<std::string> spmm_tile_names(int64_t features, bool vectorizable, DType dtype, int64_t heads) {
  std::vector<std::string> names;
  for (const SpmmTile& tile : all_tiles(heads, features, vectorizable, dtype)) names.push_back(tile_name(tile));
  return names;
}

void spmm_forward(Cuda, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c, const double* symmetric_scale, const Tensor& value_map, bool average) {
  if (c.numel() == 0) return;
  const bool bf16_values = values.defined() && values.dtype() == DType::BFloat16;
  const EdgeWeights weights{values.defined() && !bf16_values ? values.data<float>() : nullptr,
                            bf16_values ? values.data<bfloat16>() : nullptr, symmetric_scale,
                            value_map.defined() ? value_map.data<int32_t>() : nullptr, average};
  if (b.dtype() == DType::BFloat16) return spmm_forward_as<bfloat16>(csr, weights, heads, features, b, c);
  spmm_forward_as<float>(csr, weights, heads, features, b, c);
}

void gather_edges(Cuda, const Tensor& map, const Tensor& in, Tensor& out) {
  const int64_t count = map.numel();
  if (out.numel() == 0) return;
  const Device device = in.device();
  cuda::DeviceGuard guard(device);
  const int64_t row_bytes = out.numel() / count * static_cast<int64_t>(dtype_size(in.dtype()));
  const auto gather = [&](auto unit) {
    using U = decltype(unit);
    const int64_t units = row_bytes / static_cast<int64_t>(sizeof(U));
    const LaunchShape shape = elementwise_launch_shape(count * units, device);
    gather_edges_kernel<U><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
        offsets_of(map), static_cast<const U*>(in.raw_data()), static_cast<U*>(out.raw_data()), count, units);
  };
  const auto fits = [&](std::size_t bytes) {
    const auto b = static_cast<int64_t>(bytes);
    return row_bytes % b == 0 && reinterpret_cast<uintptr_t>(in.raw_data()) % bytes == 0 &&
           reinterpret_cast<uintptr_t>(out.raw_data()) % bytes == 0;
  };
  if (fits(16)) gather(uint4{});
  else if (fits(8)) gather(uint2{});
  else if (fits(4)) gather(uint32_t{});
  else gather(uint16_t{});
  SGNN_CUDA_CHECK_LAUNCH("gather_edges_kernel");
}

}  // namespace sgnn::ops
