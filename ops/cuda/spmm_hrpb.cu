// Tensor-core SpMM on HRPB (cuTeSpMM, Algorithm 1), TF32 mma.sync m16n8k8.
//
// One thread block per (virtual row panel, chunk of the features). Warps
// split the chunk, each owning TN = 8·kTiles columns (warp coarsening: 1, 2,
// 4 or 8 mma n-tiles by the width). B stages live in dynamic shared memory
// sized by the width. Per block of the panel: the packed block record and
// the 16 rows of B it needs (activeCols) are staged in shared memory; then
// each k8 step takes brick columns 2i and 2i+1: lane l of the warp owns
// A-fragment cells (row l/4, col l%4) and (row l/4 + 8, col l%4) of each
// brick, i.e. pattern bits l and l + 32, and finds its value by a popcount
// of the pattern below its bit. Staging is double-buffered: the copies of
// block i + 1 are in flight while block i's mma steps run (a block is only
// two k8 steps, so unhidden staging latency dominated at widths 128-256).
// The 8-tile kernel (widths above 32) copies each B row of a block with one
// bulk (TMA) copy completing on a shared-memory barrier, and loads the next
// block's indices a block ahead; narrower ones copy 16 bytes per cp.async.
// B whose width is not a multiple of 4 floats or whose rows are not 16-byte
// aligned is first copied into zero-padded rows (ops/cuda/pad_features.cuh):
// staged 4 bytes per cp.async, width 41 took 2.5x the time of width 128 on
// the Reddit-scale graph (docs/kernels.md).
//
// In the 8-tile kernel the columns of an n-tile are interleaved, not
// consecutive: in a group of four tiles (32 columns), column n of tile i is
// group column group_column(n) + i. A lane's B fragments for the group are
// then four consecutive floats of a staged row (one 16-byte shared load for
// four tiles), and its C values are four consecutive columns of a row per
// store. C stays in registers over the whole panel and is written once;
// only split panels use atomics (or, deterministic, slots merged in a fixed
// order by a second kernel).
#include <cstdint>

#include "core/cuda/launch.cuh"
#include "ops/cuda/async_copy.cuh"
#include "ops/cuda/hrpb_row_slices.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/pad_features.cuh"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

using namespace async_copy;

constexpr int kWarps = 4;  // warps of a thread block over a full chunk of feature columns

// Tiles of a column group (see the top): 4 in the 8-tile kernel; 1 below,
// where the 16-byte B loads saved no instruction (ptxas moved each loaded
// pair into the mma's register pair).
constexpr int group_tiles(int tiles) { return tiles == 8 ? 4 : 1; }
constexpr unsigned kFullWarp = 0xffffffffu;

struct KernelArguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* virtual_slot;
  const int32_t* active_cols;
  const int64_t* size_ptr;
  const int32_t* packed;
  const float* b;
  float* c;
  float* partials;  // deterministic mode: [slots, 16, width]; else nullptr (atomics)
  int64_t num_rows;
  int64_t width;       // columns of C, and of B that count
  int64_t b_width;     // floats per B row: the width rounded up to 4 (columns past the width zero), B 16-byte aligned
  int b_stride;       // floats per staged B row in shared memory (LaunchShape)
  int record_words;   // words of a staged record: the HRPB's max_block_words; a stage holds 2 more
  bool vector_stores; // C rows allow a lane's C pieces as single float4 (kGroup 4) or float2 (kGroup 1) stores
};

// kCount consecutive floats of shared memory in one load (the address is
// aligned to the load's size: LaunchShape pads rows to a multiple of 4 floats).
template <int kCount>
__device__ __forceinline__ void load_shared(const float* p, float (&out)[kCount]) {
  if constexpr (kCount == 4) {
    const float4 x = *reinterpret_cast<const float4*>(p);
    out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
  } else {
    static_assert(kCount == 1, "B fragments come 4 or 1 floats at a time");
    out[0] = *p;
  }
}

// The A-fragment values of `lane` in a brick whose values start at `values`
// (0 where its bit is clear): pattern bit lane (row lane/4) and bit lane + 32
// (row lane/4 + 8), each found by a popcount of the bits below it.
// Branch-free: the load happens either way and the select drops a clear
// bit's value. That load reads at most one word past the block's values,
// still inside the staged record (a stage holds max_block_words + 2 words).
__device__ __forceinline__ void brick_values(uint64_t pattern, int lane, uint32_t lane_mask, const int32_t* values,
                                             float& upper, float& lower) {
  const auto low = static_cast<uint32_t>(pattern);
  const auto high = static_cast<uint32_t>(pattern >> 32);
  const float upper_value = __int_as_float(values[__popc(low & lane_mask)]);
  const float lower_value = __int_as_float(values[__popc(low) + __popc(high & lane_mask)]);
  upper = (low >> lane) & 1u ? upper_value : 0.0f;
  lower = (high >> lane) & 1u ? lower_value : 0.0f;
}

// Where block `block`'s record lies and which B rows it needs. Loaded just
// before the copies that need them, these loads were the 8-tile kernel's
// top stall (ncu); that kernel loads them a block ahead.
struct BlockIndices {
  int64_t record_begin;
  int64_t record_end;
  int32_t lane_column;  // lanes 0-15: original column of the block's compacted column `lane`; else -1
};

__device__ __forceinline__ BlockIndices load_block_indices(const KernelArguments& args, int32_t block, int lane) {
  return {args.size_ptr[block], args.size_ptr[block + 1],
          lane < hrpb::kBlockCols ? args.active_cols[int64_t{block} * hrpb::kBlockCols + lane] : -1};
}

// B rows of a block by 16-byte cp.async, zeros for padding columns and for
// staged columns past the chunk. chunk_width: B columns of the chunk, a
// multiple of 4.
__device__ __forceinline__ void stage_rows_by_quad(const KernelArguments& args, int32_t lane_column,
                                                   int64_t chunk_begin, int chunk_width, int staged_width,
                                                   float* sm_b) {
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int quads = staged_width / 4;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (hrpb_staging::stage_rows_by_slices(args.b, args.b_width, args.b_stride, lane_column, chunk_begin, chunk_width,
                                         staged_width, sm_b)) {
    return;  // every full chunk
  }
  // 16 · quads is a multiple of 32: every lane of a warp runs the same
  // iterations, so the full-warp shuffles are safe.
  for (int i = thread; i < hrpb::kBlockCols * quads; i += threads) {
    const int k = i / quads;
    const int j = 4 * (i - k * quads);
    const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
    if (column >= 0 && j < chunk_width) {
      cp_async16(&sm_b[k * args.b_stride + j], args.b + int64_t{column} * args.b_width + chunk_begin + j);
    } else {
      *reinterpret_cast<float4*>(&sm_b[k * args.b_stride + j]) = zero;
    }
  }
}

// B rows of a block by one bulk (TMA) copy per row with a column, completing
// on `barrier`: 16 copy instructions per block instead of one per 16 bytes;
// zeros as above.
__device__ __forceinline__ void stage_rows_by_bulk_copy(const KernelArguments& args, int32_t lane_column,
                                                        int64_t chunk_begin, int chunk_width, int staged_width,
                                                        float* sm_b, uint64_t* barrier) {
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread % 32;
  const unsigned with_column = __ballot_sync(kFullWarp, lane_column >= 0);
  const unsigned row_bytes = static_cast<unsigned>(chunk_width) * sizeof(float);
  if (thread == 0) barrier_arrive_expect_bytes(barrier, __popc(with_column) * row_bytes);
  // Row k is issued by warp k mod warps: a warp issues its bulk copies one
  // lane after another, so one warp issuing all 16 held the others at the
  // barrier. (A copy may complete before thread 0 announces the bytes: the
  // transaction count may go negative until then, and the phase cannot end
  // before that arrival.)
  const int warps = threads / 32;
  if (lane < hrpb::kBlockCols && lane % warps == thread / 32 && lane_column >= 0) {
    bulk_copy(sm_b + lane * args.b_stride, args.b + int64_t{lane_column} * args.b_width + chunk_begin, row_bytes,
              barrier);
  }
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (unsigned padding = ~with_column & 0xffffu; padding != 0; padding &= padding - 1) {
    float* row = sm_b + (__ffs(padding) - 1) * args.b_stride;
    for (int j = 4 * thread; j < chunk_width; j += 4 * threads) *reinterpret_cast<float4*>(row + j) = zero;
  }
  const int tail_quads = (staged_width - chunk_width) / 4;  // both multiples of 4 here
  for (int i = thread; i < hrpb::kBlockCols * tail_quads; i += threads) {
    const int k = i / tail_quads;
    *reinterpret_cast<float4*>(sm_b + k * args.b_stride + chunk_width + 4 * (i - k * tail_quads)) = zero;
  }
}

// Issues the copies of a block's record and B rows into one stage of shared
// memory; the cp.async copies of a call are one group. B rows go by bulk
// copies when kBulk (the 8-tile kernel: rows of 144 bytes or more; at
// 128-byte rows the bulk copies' latency cost more than their fewer
// instructions saved, docs/kernels.md), else by 16-byte cp.async. (16-byte
// copies in the 8-tile kernel too were 2-33% slower at widths 64-256 on
// every large FEM and stencil matrix, H200: unlike the BF16 kernel's
// half-as-wide rows, no choice to time here.) Every
// warp holds the same 16 columns, so branches on them are uniform over the
// thread block.
template <bool kBulk>
__device__ __forceinline__ void stage_block(const KernelArguments& args, const BlockIndices& indices,
                                            int64_t chunk_begin, int chunk_width, int staged_width,
                                            int32_t* sm_record, float* sm_b, uint64_t* barrier) {
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  // At most a stage's capacity, whatever the indices say.
  const int record_words = min(static_cast<int>(indices.record_end - indices.record_begin), args.record_words);
  // Records start 8-byte aligned and hold an even word count (hrpb::block_words).
  for (int i = 2 * thread; i < record_words; i += 2 * threads) {
    cp_async8(&sm_record[i], args.packed + indices.record_begin + i);
  }
  // B columns of the chunk with the zero padding of the last one (b_width is the width rounded up to 4).
  const int b_columns = (chunk_width + 3) / 4 * 4;
  if constexpr (kBulk) {
    stage_rows_by_bulk_copy(args, indices.lane_column, chunk_begin, b_columns, staged_width, sm_b, barrier);
  } else {
    stage_rows_by_quad(args, indices.lane_column, chunk_begin, b_columns, staged_width, sm_b);
  }
  cp_async_commit();
}

// Writes one lane's C values of one row: `count` consecutive columns from
// `col` (those past chunk_end dropped), as whole vectors where allowed.
template <int kCount>
__device__ __forceinline__ void store_row_piece(const KernelArguments& args, const float (&values)[kCount],
                                                int64_t row, int row_in_panel, int64_t col, int64_t chunk_end,
                                                int32_t slot) {
  if (slot < 0 && args.vector_stores && col + kCount <= chunk_end) {
    float* out = &args.c[row * args.width + col];
    // st.global.v4 / v2 in PTX: through a float4 pointer, ptxas split the
    // store into four 4-byte stores whenever the values sat in
    // non-consecutive registers (the accumulators of four tiles).
    if constexpr (kCount == 4) {
      asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(out), "f"(values[0]), "f"(values[1]),
                   "f"(values[2]), "f"(values[3])
                   : "memory");
    } else {
      static_assert(kCount == 2, "C pieces are 4 or 2 floats");
      asm volatile("st.global.v2.f32 [%0], {%1, %2};\n" ::"l"(out), "f"(values[0]), "f"(values[1]) : "memory");
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < kCount; ++i) {
    const int64_t element = col + i;
    if (element >= chunk_end) continue;
    if (slot < 0) {
      args.c[row * args.width + element] = values[i];
    } else if (args.partials != nullptr) {
      args.partials[(int64_t{slot} * hrpb::kPanelRows + row_in_panel) * args.width + element] = values[i];
    } else {
      atomicAdd(&args.c[row * args.width + element], values[i]);
    }
  }
}

// Column n (0-7) of the first tile of a group, in group columns; column n
// of tile i is that + i. With four tiles, n = 2t lie in the first 16 group
// columns and n = 2t + 1 in the next 16: the four lanes of a C row then
// store 64 contiguous bytes per instruction (whole 32-byte sectors; 16 bytes
// at a 32-byte stride would be half sectors, twice the L2 write requests).
template <int kGroup>
__device__ __forceinline__ int group_column(int n) {
  if constexpr (kGroup == 4) return (n & 1) * 16 + (n >> 1) * 4;
  return n;
}

// kTiles mma n-tiles per warp: warp columns TN = 8·kTiles, chunk = kWarps·TN;
// tiles in groups of kGroup with interleaved columns (see the top). The
// minimum resident blocks cap the registers: 80 with 8 tiles (shared memory
// limits those blocks first; 72 spilled), 56 below (48 spilled).
template <int kTiles>
__global__ void __launch_bounds__(32 * kWarps, kTiles == 8 ? 6 : 9) spmm_hrpb_kernel(KernelArguments args) {
  constexpr int kGroup = group_tiles(kTiles);
  constexpr int kGroups = kTiles / kGroup;
  constexpr int kGroupColumns = 8 * kGroup;
  constexpr int kWarpColumns = 8 * kTiles;
  constexpr int kChunk = kWarps * kWarpColumns;
  // Dynamic shared memory: two stages of 16 B rows (b_stride floats each),
  // then two stages of the block record, sized by the HRPB's largest block
  // (a record of the worst case took 2.2 KB and cost a resident block per SM
  // at width 128).
  extern __shared__ float4 dynamic_shared[];
  float* const sm_b = reinterpret_cast<float*>(dynamic_shared);
  const int stage_floats = hrpb::kBlockCols * args.b_stride;
  const int record_stage_words = args.record_words + 2;
  int32_t* const sm_records = reinterpret_cast<int32_t*>(sm_b + 2 * stage_floats);
  __shared__ uint64_t stage_barrier[2];

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int group = lane / 4;         // groupID of the mma fragment layouts
  const int in_group = lane % 4;      // threadID_in_group
  const uint32_t lane_mask = (1u << lane) - 1u;  // pattern bits below this lane's
  const int64_t v = blockIdx.x;
  const int64_t chunk_begin = int64_t{blockIdx.y} * kChunk;
  const int chunk_width = static_cast<int>(args.width - chunk_begin < kChunk ? args.width - chunk_begin : kChunk);
  const int staged_width = (chunk_width + kGroupColumns - 1) / kGroupColumns * kGroupColumns;

  // The warp's tile groups inside the chunk, and its B fragment row in a stage:
  // rows in_group and in_group + 4 of each k8 step, kGroup columns from
  // group_column(group) in each group of the warp.
  const int b_stride = args.b_stride;
  const int warp_groups = min(kGroups, max(0, (chunk_width - warp * kWarpColumns + kGroupColumns - 1) / kGroupColumns));
  const float* const b_warp = sm_b + in_group * b_stride + warp * kWarpColumns + group_column<kGroup>(group);

  float acc[kTiles][4];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;

  constexpr bool kBulk = kTiles == 8;
  if (kBulk && threadIdx.x == 0) {
    barrier_init(&stage_barrier[0]);
    barrier_init(&stage_barrier[1]);
    barrier_init_fence();
  }
  __syncthreads();

  const int32_t block_begin = args.virtual_block_ptr[v];
  const int32_t block_end = args.virtual_block_ptr[v + 1];
  // The 8-tile kernel loads a block's indices one block ahead of staging it
  // (`ahead`); in the 4-tile kernel that cost 5-9% at widths 32-64 (H200),
  // so the narrower kernels load them when staging.
  BlockIndices ahead{};
  if (block_begin < block_end) {
    stage_block<kBulk>(args, load_block_indices(args, block_begin, lane), chunk_begin, chunk_width, staged_width,
                       sm_records, sm_b, &stage_barrier[0]);
    if (kBulk && block_begin + 1 < block_end) ahead = load_block_indices(args, block_begin + 1, lane);
  }
  for (int32_t block = block_begin; block < block_end; ++block) {
    const int stage = (block - block_begin) & 1;
    if (block + 1 < block_end) {
      // The other stage was last read by block - 1, before the barrier that ended its iteration.
      const BlockIndices next = kBulk ? ahead : load_block_indices(args, block + 1, lane);
      stage_block<kBulk>(args, next, chunk_begin, chunk_width, staged_width,
                         sm_records + (stage ^ 1) * record_stage_words,
                         sm_b + (stage ^ 1) * stage_floats, &stage_barrier[stage ^ 1]);
      if (kBulk && block + 2 < block_end) ahead = load_block_indices(args, block + 2, lane);
      cp_async_wait<1>();  // this block's group has landed; the next one may still be in flight
    } else {
      cp_async_wait<0>();
    }
    // The n-th use of a stage's barrier completes its phase n (parity n & 1).
    if (kBulk) barrier_wait(&stage_barrier[stage], ((block - block_begin) >> 1) & 1);
    __syncthreads();

    const int32_t* record = sm_records + stage * record_stage_words;
    const int bricks = record[hrpb::kBrickColumns];
    const int32_t* values = record + hrpb::values_offset(bricks);
    const int32_t* pattern_words = record + hrpb::patterns_offset(bricks);
    int nnz_offset = 0;
#pragma unroll
    for (int step = 0; step < hrpb::kBrickColumns / 2; ++step) {
      // Brick columns 2·step (A columns 0..3 of the k8 step) and 2·step + 1 (columns 4..7).
      uint64_t pattern[2] = {0, 0};
      int offset[2] = {0, 0};
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int brick_col = 2 * step + half;
        // TM = brick height: a brick column holds at most one brick, brick row 0.
        if (record[brick_col + 1] > record[brick_col]) {
          const int k = record[brick_col];
          pattern[half] = hrpb::brick_pattern(pattern_words + 2 * k);
          offset[half] = nnz_offset;
          nnz_offset += __popcll(pattern[half]);
        }
      }
      if ((pattern[0] | pattern[1]) == 0) continue;  // warp-uniform: no brick in this k8 step
      float cells[4];  // (row g, col t), (row g + 8, col t), (row g, col t + 4), (row g + 8, col t + 4)
      brick_values(pattern[0], lane, lane_mask, values + offset[0], cells[0], cells[1]);
      brick_values(pattern[1], lane, lane_mask, values + offset[1], cells[2], cells[3]);
      const uint32_t a[4] = {to_tf32(cells[0]), to_tf32(cells[1]), to_tf32(cells[2]), to_tf32(cells[3])};
      const float* b_step = b_warp + stage * stage_floats + (step * 8) * b_stride;
#pragma unroll
      for (int q = 0; q < kGroups; ++q) {
        if (q >= warp_groups) break;  // warp-uniform: the group lies past the chunk
        float upper[kGroup], lower[kGroup];  // B rows in_group and in_group + 4
        load_shared(b_step + q * kGroupColumns, upper);
        load_shared(b_step + q * kGroupColumns + 4 * b_stride, lower);
#pragma unroll
        for (int i = 0; i < kGroup; ++i) mma_tf32(acc[q * kGroup + i], a, to_tf32(upper[i]), to_tf32(lower[i]));
      }
    }
    __syncthreads();  // before the next iteration's copies overwrite this stage
  }

  // C fragment of tile q·kGroup + i: c0, c1 at (row g, n = 2t, 2t + 1), c2,
  // c3 at row g + 8; column n of that tile is group column
  // group_column(n) + i, so the lane holds kGroup consecutive columns of a
  // row for n = 2t and for n = 2t + 1 (adjacent when kGroup is 1).
  const int64_t panel = args.virtual_panel[v];
  const int32_t slot = args.virtual_slot[v];
  const int64_t chunk_end = chunk_begin + chunk_width;
#pragma unroll
  for (int q = 0; q < kGroups; ++q) {
    const int64_t group_begin = chunk_begin + warp * kWarpColumns + q * kGroupColumns;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row_in_panel = group + 8 * half;
      const int64_t row = panel * hrpb::kPanelRows + row_in_panel;
      if (row >= args.num_rows) continue;
      float even[kGroup], odd[kGroup];  // n = 2t, n = 2t + 1
#pragma unroll
      for (int i = 0; i < kGroup; ++i) {
        even[i] = acc[q * kGroup + i][2 * half];
        odd[i] = acc[q * kGroup + i][2 * half + 1];
      }
      const int64_t even_col = group_begin + group_column<kGroup>(2 * in_group);
      if constexpr (kGroup == 4) {
        store_row_piece(args, even, row, row_in_panel, even_col, chunk_end, slot);
        store_row_piece(args, odd, row, row_in_panel, group_begin + group_column<kGroup>(2 * in_group + 1), chunk_end,
                        slot);
      } else {
        const float both[2] = {even[0], odd[0]};
        store_row_piece(args, both, row, row_in_panel, even_col, chunk_end, slot);
      }
    }
  }
}

// Deterministic merge: C rows of split panel s = sum of its slots, in slot order.
__global__ void merge_split_panels_kernel(const int32_t* split_panel, const int32_t* split_slot_ptr,
                                          const float* partials, float* c, int64_t num_rows, int64_t width) {
  const int64_t s = blockIdx.x;
  const int64_t panel = split_panel[s];
  const int64_t tile = hrpb::kPanelRows * width;
  for (int64_t i = threadIdx.x; i < tile; i += blockDim.x) {
    const int64_t row = panel * hrpb::kPanelRows + i / width;
    if (row >= num_rows) break;
    float sum = 0.0f;
    for (int32_t part = split_slot_ptr[s]; part < split_slot_ptr[s + 1]; ++part) sum += partials[part * tile + i];
    c[row * width + i % width] = sum;
  }
}

// The launch of one width: n-tiles per warp (1, 2 and 4 up to widths 8, 16
// and 32, 8 beyond: each warp's decoded A fragments then serve more mma.
// Measured on an H200: the 8-tile kernel is 2-24% faster than the 4-tile
// one at width 64 on the FEM matrices and 12-18% slower at 32, where a
// bulk copy moves only 128 bytes), the chunk
// of feature columns a thread block covers, its warps, and the shared
// memory of the staged B rows, sized by the width (narrow widths fit more
// blocks on an SM). Rows are padded to 4 mod 32 floats with four tiles a
// group, else to 8 mod 32: the B-fragment loads (kGroup floats at row t,
// group column group_column(g) of lane 4g + t) then hit distinct banks in
// each phase of the load (8 lanes for 16 bytes, 32 for 4).
struct LaunchShape {
  int tiles;
  int64_t chunk;
  int warps;
  int b_stride;
  std::size_t shared_bytes;
  int store_floats;  // floats per vector store of C (one C piece of store_row_piece)
};

// record_words: the HRPB's max_block_words (hrpb::kMaxBlockWords for a bound
// that holds for any HRPB).
LaunchShape launch_shape(int64_t width, int64_t record_words) {
  LaunchShape shape{};
  shape.tiles = width > 32 ? 8 : width > 16 ? 4 : width > 8 ? 2 : 1;
  const int group_columns = 8 * group_tiles(shape.tiles);
  const int64_t warp_columns = 8 * shape.tiles;
  shape.chunk = kWarps * warp_columns;
  const int64_t widest = std::min(width, shape.chunk);  // the first chunk's width, the widest
  shape.warps = static_cast<int>((widest + warp_columns - 1) / warp_columns);
  const int64_t staged = (widest + group_columns - 1) / group_columns * group_columns;
  shape.b_stride = static_cast<int>((staged + 31) / 32 * 32 + (group_tiles(shape.tiles) == 4 ? 4 : 8));
  shape.shared_bytes = std::size_t{2} * hrpb::kBlockCols * static_cast<std::size_t>(shape.b_stride) * sizeof(float) +
                       std::size_t{2} * static_cast<std::size_t>(record_words + 2) * sizeof(int32_t);
  shape.store_floats = group_tiles(shape.tiles) == 4 ? 4 : 2;
  return shape;
}

// The kernel instance of a launch shape: one place for the launch and the
// occupancy query.
using HrpbKernel = void (*)(KernelArguments);
HrpbKernel kernel_for(const LaunchShape& shape) {
  switch (shape.tiles) {
    case 1: return spmm_hrpb_kernel<1>;
    case 2: return spmm_hrpb_kernel<2>;
    case 4: return spmm_hrpb_kernel<4>;
    default: return spmm_hrpb_kernel<8>;
  }
}

}  // namespace

void spmm_hrpb_forward(Cuda, const Hrpb& a, const Tensor& b, Tensor& c) {
  const Device device = b.device();
  const cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  const int64_t width = b.size(1);
  const HrpbSchedule& s = a.schedule;
  SGNN_CHECK(a.num_blocks == 0 || (a.max_block_words > 0 && a.max_block_words <= hrpb::kMaxBlockWords &&
                                    a.max_block_words % 2 == 0),
             "spmm_hrpb: the HRPB's max_block_words ", a.max_block_words, " is not an even count in (0, ",
             hrpb::kMaxBlockWords, "]: the HRPB is damaged");
  const LaunchShape shape = launch_shape(width, a.max_block_words);
  const int64_t chunks = (width + shape.chunk - 1) / shape.chunk;
  SGNN_CHECK(chunks <= 65535, "spmm_hrpb: feature width ", width, " needs ", chunks,
             " column chunks; the grid allows 65535");
  if (s.num_virtual_panels == 0) return;  // no rows

  Tensor partials;
  if (s.num_split_panels > 0) {
    if (a.deterministic) {
      partials = Tensor::empty({s.num_slots * hrpb::kPanelRows * width}, DType::Float32, device);
    } else {
      SGNN_CUDA_CHECK(cudaMemsetAsync(c.data<float>(), 0, c.nbytes(), stream));  // atomics add into C
    }
  }
  // Zero-padded, 16-byte aligned B rows (see the top); the padding is a stream-ordered copy, freed after the launch.
  const sparse_cuda::VectorRows<float> b_rows = sparse_cuda::vector_rows<float>(b, width);
  const bool vector_stores = width % shape.store_floats == 0 &&
                             reinterpret_cast<std::uintptr_t>(c.raw_data()) % (shape.store_floats * sizeof(float)) == 0;
  const KernelArguments args{s.virtual_panel.data<int32_t>(),
                             s.virtual_block_ptr.data<int32_t>(),
                             s.virtual_slot.data<int32_t>(),
                             a.active_cols.data<int32_t>(),
                             a.size_ptr.data<int64_t>(),
                             a.packed_blocks.data<int32_t>(),
                             b_rows.rows,
                             c.data<float>(),
                             partials.defined() ? partials.data<float>() : nullptr,
                             a.num_rows,
                             width,
                             b_rows.width,
                             shape.b_stride,
                             static_cast<int>(a.max_block_words),
                             vector_stores};
  const dim3 grid(static_cast<unsigned>(s.num_virtual_panels), static_cast<unsigned>(chunks));
  kernel_for(shape)<<<grid, static_cast<unsigned>(32 * shape.warps), shape.shared_bytes, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("spmm_hrpb_kernel");
  if (partials.defined()) {
    merge_split_panels_kernel<<<static_cast<unsigned>(s.num_split_panels), 256, 0, stream>>>(
        s.split_panel.data<int32_t>(), s.split_slot_ptr.data<int32_t>(), partials.data<float>(), c.data<float>(),
        a.num_rows, width);
    SGNN_CUDA_CHECK_LAUNCH("merge_split_panels_kernel");
  }
}

int64_t spmm_hrpb_occupancy(Cuda, Device device, int64_t width) {
  const cuda::DeviceGuard guard(device);
  const LaunchShape shape = launch_shape(width, hrpb::kMaxBlockWords);
  int blocks_per_sm = 0;
  SGNN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel_for(shape), 32 * shape.warps,
                                                                shape.shared_bytes));
  return int64_t{blocks_per_sm} * cuda::properties(device).multiProcessorCount;
}

}  // namespace sgnn::ops
