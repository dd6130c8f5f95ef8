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
//  - B and C are read and written with float4 when the per-head width is a
//    multiple of 4 and the pointers are 16-byte aligned, else with scalars;
//    any width works (feature residues are predicated).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ops/kernel_timer.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/determinism.hpp"
#include "ops/sparse_offsets.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops {

namespace {

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

template <int kVec>
struct Vector;
template <>
struct Vector<1> {
  __device__ static void load(const float* p, float (&v)[1]) { v[0] = __ldg(p); }
  __device__ static void store(float* p, const float (&v)[1]) { *p = v[0]; }
};
template <>
struct Vector<4> {
  __device__ static void load(const float* p, float (&v)[4]) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
  }
  __device__ static void store(float* p, const float (&v)[4]) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  }
};

struct SpmmArguments {
  Offsets indptr;
  const int32_t* indices;
  const float* values;  // [nnz · heads] or null (weight 1)
  const int32_t* segment_row;
  const int64_t* segment_begin;
  int64_t segments;
  int64_t split_segments;  // segments [0, split_segments) belong to split rows
  int64_t segment_length;
  float* partials;  // [split_segments, width] in deterministic mode, else null (atomics)
  int heads;
  int64_t features;  // per head
  int64_t tiles;     // feature tiles per (row, head)
  bool vector_indices;
  const float* b;
  float* c;
  bool slice_major = false;  // item order: all (segment, head) of tile 0 first, then tile 1, …
};

template <int kVec, int kSub, int kRepeat, typename Index>
__device__ __forceinline__ void spmm_segments(const SpmmArguments& args) {
  constexpr int kTile = kSub * kVec * kRepeat;
  constexpr int kChunk = kSub * 4;  // entries a subwarp stages per step (4 per lane)
  constexpr bool kBatchLoads = kVec == 1 || kRepeat == 1;
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;  // row stride of B and C
  const int64_t segment_heads = args.segments * args.heads;
  const int64_t items = segment_heads * args.tiles;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int64_t tile = args.slice_major ? item / segment_heads : item % args.tiles;
    const int64_t segment_head = args.slice_major ? item - tile * segment_heads : item / args.tiles;
    const int head = static_cast<int>(segment_head % args.heads);
    const int64_t segment = segment_head / args.heads;
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segment_row, args.segment_begin, args.indptr, args.segment_length, segment);
    const int64_t row = range.row;
    const int64_t begin = range.begin;
    const int64_t end = range.end;
    const int64_t head_base = head * args.features;
    const int64_t feature0 = tile * kTile + lane * kVec;

    float acc[kRepeat][kVec];
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[r][v] = 0.0f;
    }

    const int64_t start = args.vector_indices ? (begin & ~int64_t{3}) : begin;
    for (int64_t chunk = start; chunk < end; chunk += kChunk) {
      // Stage: this lane's 4 entries, pre-scaled to offsets into B.
      const int64_t mine = chunk + lane * 4;
      int32_t column[4];
      if (args.vector_indices && mine + 3 < end) {
        const int4 quad = __ldg(reinterpret_cast<const int4*>(args.indices + mine));
        column[0] = quad.x; column[1] = quad.y; column[2] = quad.z; column[3] = quad.w;
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) column[k] = (mine + k >= begin && mine + k < end) ? __ldg(args.indices + mine + k) : 0;
      }
      Index scaled[4];
      float weight[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int64_t position = mine + k;
        const bool inside = position >= begin && position < end;
        scaled[k] = static_cast<Index>(column[k]) * static_cast<Index>(width) + static_cast<Index>(head_base);
        weight[k] = !inside ? 0.0f : (args.values ? __ldg(args.values + position * args.heads + head) : 1.0f);
      }
      // Accumulate the staged entries in row order (uniform control flow per
      // subwarp). Tiles of one access per lane issue all loads of a source
      // lane's 4 entries before the first FMA: one memory latency per 4
      // entries, not per entry (ncu: a 128-entry segment took 29 µs when each
      // load waited for the last). Tiles of two accesses per lane (width 256)
      // load per entry: 8 float4 in flight per lane cost occupancy, and the
      // batched form ran 6.57 -> 7.30 ms on a 31M-entry R-MAT.
      // Masked entries are skipped, not multiplied by 0: 0 · Inf would be NaN.
      const int64_t chunk_end = end < chunk + kChunk ? end : chunk + kChunk;
      for (int source = 0; source < kSub; ++source) {
        if (chunk + source * 4 >= chunk_end) break;
        Index offset[4];
        float w[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          offset[k] = __shfl_sync(mask, scaled[k], source, kSub);
          w[k] = __shfl_sync(mask, weight[k], source, kSub);
        }
        if constexpr (kBatchLoads) {
#pragma unroll
          for (int r = 0; r < kRepeat; ++r) {
            const int64_t feature = feature0 + r * kSub * kVec;
            if (feature >= args.features) continue;
            float loaded[4][kVec];
#pragma unroll
            for (int k = 0; k < 4; ++k) Vector<kVec>::load(args.b + offset[k] + feature, loaded[k]);
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              const int64_t position = chunk + source * 4 + k;
              if (position < begin || position >= end) continue;
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] += w[k] * loaded[k][v];
            }
          }
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const int64_t position = chunk + source * 4 + k;
            if (position < begin || position >= end) continue;
#pragma unroll
            for (int r = 0; r < kRepeat; ++r) {
              const int64_t feature = feature0 + r * kSub * kVec;
              if (feature >= args.features) continue;
              float loaded[kVec];
              Vector<kVec>::load(args.b + offset[k] + feature, loaded);
#pragma unroll
              for (int v = 0; v < kVec; ++v) acc[r][v] += w[k] * loaded[v];
            }
          }
        }
      }
    }
    const bool split = segment < args.split_segments;
#pragma unroll
    for (int r = 0; r < kRepeat; ++r) {
      const int64_t feature = feature0 + r * kSub * kVec;
      if (feature >= args.features) continue;
      if (!split) {
        Vector<kVec>::store(args.c + row * width + head_base + feature, acc[r]);
      } else if (args.partials != nullptr) {
        Vector<kVec>::store(args.partials + segment * width + head_base + feature, acc[r]);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v) atomicAdd(args.c + row * width + head_base + feature + v, acc[r][v]);
      }
    }
  }
}

template <int kVec, int kSub, int kRepeat>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) spmm_kernel(SpmmArguments args) {
  spmm_segments<kVec, kSub, kRepeat, int32_t>(args);
}

// 64-bit offsets (B with ≥ 2^31 elements) need more registers: asking for 2
// resident blocks lets ptxas give them up to 128 instead of spilling (an
// explicit minimum on the 32-bit kernel would change its allocation too).
template <int kVec, int kSub, int kRepeat>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads, 2) spmm_wide_index_kernel(SpmmArguments args) {
  spmm_segments<kVec, kSub, kRepeat, int64_t>(args);
}

// The tile of one launch: kVec floats per access, kSub lanes, kRepeat accesses
// per lane; by_slice: the items run slice-major (see the file comment).
struct SpmmTile {
  int vec;
  int sub;
  int repeat;
  bool by_slice = false;
  int width() const { return vec * sub * repeat; }
};

// The tile for a per-head feature width (DESIGN: launch plan per feature width).
// Widths of 256 and more take two float4 per lane (the per-entry loads
// above): 128-wide tiles, twice the work items, ran 7.3 ms (0.87x
// cuSPARSE) at width 256 on a 31M-entry R-MAT (bench/RESULTS.md).
SpmmTile choose_tile(int64_t features, bool vectorizable) {
  if (vectorizable && features % 4 == 0) {
    if (features >= 256) return {4, 32, 2};
    return {4, sparse_cuda::next_power_of_two(std::min<int64_t>(features / 4, 32), 32), 1};
  }
  if (features <= 32) return {1, sparse_cuda::next_power_of_two(features, 32), 1};
  return {1, 32, 4};
}

template <int kVec, int kSub, int kRepeat>
void launch(const SpmmArguments& args, bool wide_index, Device device) {
  const int64_t items = args.segments * args.heads * args.tiles;
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kSub, device);
  cudaStream_t stream = cuda::stream(device);
  if (wide_index) {
    spmm_wide_index_kernel<kVec, kSub, kRepeat><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
  } else {
    spmm_kernel<kVec, kSub, kRepeat><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
  }
  SGNN_CUDA_CHECK_LAUNCH("spmm_kernel");
}

template <int kVec, int kRepeat>
void launch_sub(int sub, const SpmmArguments& args, bool wide_index, Device device) {
  switch (sub) {
    case 1: return launch<kVec, 1, kRepeat>(args, wide_index, device);
    case 2: return launch<kVec, 2, kRepeat>(args, wide_index, device);
    case 4: return launch<kVec, 4, kRepeat>(args, wide_index, device);
    case 8: return launch<kVec, 8, kRepeat>(args, wide_index, device);
    case 16: return launch<kVec, 16, kRepeat>(args, wide_index, device);
    default: return launch<kVec, 32, kRepeat>(args, wide_index, device);
  }
}

// Every tile has a kernel: float4 tiles of 1-4 accesses per lane (lanes 4-32
// for 2 and 4 accesses), scalar tiles of one access (any lanes) or four (32 lanes).
bool has_kernel(const SpmmTile& tile) {
  if (tile.vec == 4) return tile.repeat == 1 || ((tile.repeat == 2 || tile.repeat == 4) && tile.sub >= 4);
  return tile.repeat == 1 || (tile.repeat == 4 && tile.sub == 32);
}

void launch_tile(const SpmmTile& tile, const SpmmArguments& args, bool wide_index, Device device) {
  if (tile.vec == 4) {
    if (tile.repeat == 4) return launch_sub<4, 4>(tile.sub, args, wide_index, device);
    if (tile.repeat == 2) return launch_sub<4, 2>(tile.sub, args, wide_index, device);
    return launch_sub<4, 1>(tile.sub, args, wide_index, device);
  }
  if (tile.repeat == 4) return launch<1, 32, 4>(args, wide_index, device);
  return launch_sub<1, 1>(tile.sub, args, wide_index, device);
}

std::string tile_name(const SpmmTile& tile) {
  return "v" + std::to_string(tile.vec) + "s" + std::to_string(tile.sub) + "r" + std::to_string(tile.repeat) +
         (tile.by_slice ? "-slices" : "");
}

// The tiles timed for a width, the rule's first: float4 tiles of one, two
// and four accesses per lane, each with the fewest lanes that cover the row
// (more rows per warp and more loads in flight per lane as accesses grow).
std::vector<SpmmTile> candidate_tiles(int64_t features, bool vectorizable) {
  std::vector<SpmmTile> tiles{choose_tile(features, vectorizable)};
  if (!vectorizable || features % 4 != 0) return tiles;
  for (const int repeat : {1, 2, 4}) {
    const int64_t lanes = (features / 4 + repeat - 1) / repeat;  // lanes for one row's float4s
    const SpmmTile tile{4, sparse_cuda::next_power_of_two(lanes, 32), repeat};
    const bool known = std::any_of(tiles.begin(), tiles.end(), [&](const SpmmTile& t) { return tile_name(t) == tile_name(tile); });
    // A tile over twice the row's width would leave most lanes idle.
    if (!known && has_kernel(tile) && tile.width() < 2 * features + 4 * 4) tiles.push_back(tile);
  }
  // Slice-major float4 tiles 64 and 128 wide, where a row has at least two slices.
  for (const int lanes : {16, 32}) {
    const SpmmTile tile{4, lanes, 1, true};
    if (tile.width() < features) tiles.push_back(tile);
  }
  return tiles;
}

__global__ void gather_edges_kernel(Offsets map, const float* __restrict__ in, float* __restrict__ out, int64_t count,
                                    int64_t width) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    out[i] = in[map[k] * width + (i - k * width)];
  }
}

// C[split row, :] = 0 before the segments of split rows add into it.
__global__ void zero_split_rows_kernel(const int32_t* __restrict__ rows, int64_t count, int64_t width,
                                       float* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    c[int64_t{rows[k]} * width + (i - k * width)] = 0.0f;
  }
}

// Deterministic mode: C[split row k, j] = Σ partials[s, j] over the row's
// segments s in order, one thread per element (coalesced over j).
__global__ void reduce_split_rows_kernel(const int32_t* __restrict__ rows, const int64_t* __restrict__ offsets,
                                         const float* __restrict__ partials, int64_t count, int64_t width,
                                         float* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    const int64_t j = i - k * width;
    float sum = 0.0f;
    for (int64_t s = offsets[k]; s < offsets[k + 1]; ++s) sum += partials[s * width + j];
    c[int64_t{rows[k]} * width + j] = sum;
  }
}

// The tile a name (tile_name) stands for, when it has a kernel and suits the width.
std::optional<SpmmTile> parse_tile(const std::string& name, int64_t features, bool vectorizable) {
  SpmmTile tile{};
  int length = 0;
  if (std::sscanf(name.c_str(), "v%ds%dr%d%n", &tile.vec, &tile.sub, &tile.repeat, &length) != 3) return std::nullopt;
  const std::string tail = name.substr(static_cast<std::size_t>(length));
  if (!tail.empty() && tail != "-slices") return std::nullopt;
  tile.by_slice = !tail.empty();
  const bool lanes_ok = tile.sub >= 1 && tile.sub <= 32 && (tile.sub & (tile.sub - 1)) == 0;
  const bool vec_ok = tile.vec == 1 || (tile.vec == 4 && vectorizable && features % 4 == 0);
  if (!lanes_ok || !vec_ok || !has_kernel(tile)) return std::nullopt;
  return tile;
}

// The forced tile, else the graph's recorded choice, else timing (where it
// pays, ops/kernel_choices.hpp), else the rule. Every tile computes each
// output from the same entries in the same order: the choice changes speed only.
template <typename Run>
SpmmTile choose_spmm_tile(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, bool vectorizable,
                          Device device, const Run& run) {
  const std::string forced = forced_spmm_tile();
  if (!forced.empty()) {
    for (const SpmmTile& tile : candidate_tiles(features, vectorizable)) {
      if (tile_name(tile) == forced) return tile;
    }
  }
  const std::string key = "spmm-tile:h" + std::to_string(heads) + ":f" + std::to_string(features) +
                          (vectorizable ? "" : ":scalar");
  // The recorded choice, read back from its name without listing the candidates (every call comes here).
  if (const std::optional<std::string> recorded = plan.choices->find(key)) {
    if (const std::optional<SpmmTile> tile = parse_tile(*recorded, features, vectorizable)) return *tile;
  }
  const std::vector<SpmmTile> tiles = candidate_tiles(features, vectorizable);
  if (tiles.size() == 1 || !may_tune(csr, *plan.choices, stream_capturing(device))) return tiles.front();
  SpmmTile best = tiles.front();
  double best_ms = std::numeric_limits<double>::infinity();
  for (const SpmmTile& tile : tiles) {
    const double ms = fastest_of_two_ms(device, [&] { run(tile); });
    if (ms < best_ms) {
      best_ms = ms;
      best = tile;
    }
  }
  plan.choices->set(key, tile_name(best));
  return best;
}

}  // namespace

std::vector<std::string> spmm_tile_names(int64_t features, bool vectorizable) {
  std::vector<std::string> names;
  for (const SpmmTile& tile : candidate_tiles(features, vectorizable)) names.push_back(tile_name(tile));
  return names;
}

void spmm_forward(Cuda, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c) {
  if (c.numel() == 0) return;
  const Device device = b.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const int64_t width = heads * features;
  const bool split = plan->split_segments > 0;
  const bool ordered = split && deterministic();
  const Tensor partials = ordered ? Tensor::empty({plan->split_segments, width}, DType::Float32, device) : Tensor();
  const bool vectorizable = sparse_cuda::aligned16(b.raw_data()) && sparse_cuda::aligned16(c.raw_data()) &&
                            (!ordered || sparse_cuda::aligned16(partials.raw_data()));
  cudaStream_t stream = cuda::stream(device);
  const int32_t* split_rows = split ? plan->split_rows.data<int32_t>() : nullptr;
  SpmmArguments args{offsets_of(csr.indptr),
                     csr.indices.data<int32_t>(),
                     values.defined() ? values.data<float>() : nullptr,
                     plan->segment_row.data<int32_t>(),
                     plan->segment_begin.data<int64_t>(),
                     plan->segments,
                     plan->split_segments,
                     plan->segment_length,
                     ordered ? partials.data<float>() : nullptr,
                     static_cast<int>(heads),
                     features,
                     0,
                     sparse_cuda::aligned16(csr.indices.raw_data()),
                     b.data<float>(),
                     c.data<float>()};
  const bool wide_index = csr.num_cols * heads * features >= (int64_t{1} << 31);
  const auto run = [&](const SpmmTile& tile) {
    args.tiles = (features + tile.width() - 1) / tile.width();
    args.slice_major = tile.by_slice;
    if (split && !ordered) {  // the split rows are summed into C with atomics: cleared before every launch
      const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
      zero_split_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(split_rows, plan->num_split_rows, width,
                                                                         c.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("zero_split_rows_kernel");
    }
    launch_tile(tile, args, wide_index, device);
  };
  run(choose_spmm_tile(csr, *plan, heads, features, vectorizable, device, run));
  if (ordered) {
    const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
    reduce_split_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        split_rows, plan->split_offsets.data<int64_t>(), partials.data<float>(), plan->num_split_rows, width,
        c.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("reduce_split_rows_kernel");
  }
}

void gather_edges(Cuda, const Tensor& map, const Tensor& in, Tensor& out) {
  const int64_t count = map.numel();
  if (out.numel() == 0) return;
  const Device device = in.device();
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(out.numel(), device);
  gather_edges_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      offsets_of(map), in.data<float>(), out.data<float>(), count, out.numel() / count);
  SGNN_CUDA_CHECK_LAUNCH("gather_edges_kernel");
}

}  // namespace sgnn::ops
