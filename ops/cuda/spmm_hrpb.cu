// Tensor-core SpMM on HRPB in TF32: the MMA policy of the HRPB kernel
// (ops/cuda/spmm_hrpb_kernel.cuh) for mma.sync m16n8k8, and its launch.
//
// Warps split the chunk, each owning TN = 8·kTiles columns (warp coarsening:
// 1, 2, 4 or 8 mma n-tiles by the width). Per block of the panel the packed
// block record is staged beside the 16 B rows; then each k8 step takes brick
// columns 2i and 2i+1: lane l of the warp owns A-fragment cells (row l/4,
// col l%4) and (row l/4 + 8, col l%4) of each brick, i.e. pattern bits l and
// l + 32, and finds its value by a popcount of the pattern below its bit.
// The 8-tile kernel (widths above 32) copies each B row of a block with one
// bulk (TMA) copy and loads the next block's indices a block ahead;
// narrower ones copy 16 bytes per cp.async. B whose width is not a multiple
// of 4 floats or whose rows are not 16-byte aligned is first copied into
// zero-padded rows: staged 4 bytes per cp.async, width 41 took 2.5x the
// time of width 128 on the Reddit-scale graph (docs/kernels.md).
//
// In the 8-tile kernel the columns of an n-tile are interleaved, not
// consecutive: in a group of four tiles (32 columns), column n of tile i is
// group column group_column(n) + i. A lane's B fragments for the group are
// then four consecutive floats of a staged row (one 16-byte shared load for
// four tiles), and its C values are four consecutive columns of a row per
// store. Only split panels use atomics (or, deterministic, slots merged in a
// fixed order by a second kernel).
#include <cstdint>

#include "core/cuda/launch.cuh"
#include "ops/cuda/async_copy.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/pad_features.cuh"
#include "ops/cuda/spmm_hrpb_kernel.cuh"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

using hrpb_spmm::kHrpbWarps;

// Tiles of a column group (see the top): 4 in the 8-tile kernel; 1 below,
// where the 16-byte B loads saved no instruction (ptxas moved each loaded
// pair into the mma's register pair).
constexpr int group_tiles(int tiles) { return tiles == 8 ? 4 : 1; }

// Where the TF32 kernel reads A: the packed block records.
// (Arguments::record_words: the HRPB's max_block_words.)
struct RecordArguments {
  const int64_t* size_ptr;
  const int32_t* packed;
};
using KernelArguments = hrpb_spmm::Arguments<float, RecordArguments>;

// kCount consecutive floats of shared memory in one load (the address is
// aligned to the load's size: LaunchShape pads rows to a multiple of 4
// floats). Plain loads, not volatile asm, so that the compiler may issue a
// group's first B loads beside the A values' loads, ahead of the branch on
// warp_groups: with volatile ld.shared asm (bf3bc7b) and a fragment() that
// both tested the step and decoded it, the PTX waited behind a merged
// branch there, and the 1- to 4-tile kernels (widths 16-32) took 1.3-6%
// longer than the kernel before the MMA policies (f682b00). Both undone,
// every TF32 case of the stencils and FEM meshes takes 0.95-1.01x that
// kernel's time (H200, bench/compare_builds.sh; docs/kernels.md).
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

// The TF32 policy (see ops/cuda/spmm_hrpb_kernel.cuh for the contract):
// kTiles n-tiles per warp in groups of group_tiles(kTiles) with interleaved
// columns (see the top), two k8 steps per block. The minimum resident blocks
// cap the registers: 80 with 8 tiles (shared memory limits those blocks
// first; 72 spilled), 56 below (48 spilled). B rows by bulk copies in the
// 8-tile kernel only: rows of 144 bytes or more; at 128-byte rows the bulk
// copies' latency cost more than their fewer instructions saved
// (docs/kernels.md). (16-byte copies in the 8-tile kernel too were 2-33%
// slower at widths 64-256 on every large FEM and stencil matrix, H200:
// unlike the BF16 kernel's half-as-wide rows, no choice to time here.)
template <int kTilesPerWarp>
struct Tf32Mma {
  using Element = float;
  using KernelArguments = sgnn::ops::KernelArguments;
  static constexpr int kTiles = kTilesPerWarp;
  static constexpr int kGroupTiles = group_tiles(kTiles);
  static constexpr int kLoadTiles = kGroupTiles;  // one 16-byte (or 4-byte) load per row serves the group
  static constexpr int kSteps = hrpb::kBrickColumns / 2;  // k8: two brick columns a step
  static constexpr bool kBulk = kTiles == 8;
  // The 8-tile kernel loads a block's indices one block ahead of staging it;
  // in the 4-tile kernel that cost 5-9% at widths 32-64 (H200), so the
  // narrower kernels load them when staging.
  static constexpr bool kIndicesAhead = kBulk;
  static constexpr int kMinBlocks = kTiles == 8 ? 6 : 9;

  using Indices = BlockIndices;
  static __device__ __forceinline__ Indices load_indices(const KernelArguments& args, int32_t block, int lane) {
    return {args.a.size_ptr[block], args.a.size_ptr[block + 1],
            lane < hrpb::kBlockCols ? args.active_cols[int64_t{block} * hrpb::kBlockCols + lane] : -1};
  }
  static __device__ __forceinline__ int32_t lane_column(const Indices& indices) { return indices.lane_column; }

  // A of one staged block: its bricks' patterns and values, decoded per step.
  struct BlockA {
    const int32_t* record;
    const int32_t* values;
    const int32_t* pattern_words;
    int lane;
    uint32_t lane_mask;
    int nnz_offset;

    uint64_t pattern[2];
    const int32_t* brick_values_begin[2];  // the step's bricks' first values

    // Brick columns 2·step (A columns 0..3 of the k8 step) and 2·step + 1
    // (columns 4..7): their patterns and where their values start.
    __device__ __forceinline__ bool begin_step(int step) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int brick_col = 2 * step + half;
        pattern[half] = 0;
        brick_values_begin[half] = values;
        // TM = brick height: a brick column holds at most one brick, brick row 0.
        if (record[brick_col + 1] > record[brick_col]) {
          const int k = record[brick_col];
          pattern[half] = hrpb::brick_pattern(pattern_words + 2 * k);
          brick_values_begin[half] = values + nnz_offset;
          nnz_offset += __popcll(pattern[half]);
        }
      }
      return (pattern[0] | pattern[1]) != 0;
    }
    __device__ __forceinline__ void fragment(uint32_t (&a)[4]) const {
      float cells[4];  // (row g, col t), (row g + 8, col t), (row g, col t + 4), (row g + 8, col t + 4)
      brick_values(pattern[0], lane, lane_mask, brick_values_begin[0], cells[0], cells[1]);
      brick_values(pattern[1], lane, lane_mask, brick_values_begin[1], cells[2], cells[3]);
      a[0] = to_tf32(cells[0]), a[1] = to_tf32(cells[1]), a[2] = to_tf32(cells[2]), a[3] = to_tf32(cells[3]);
    }
  };

  // Two stages of the block record after the B stages, sized by the HRPB's
  // largest block (a record of the worst case took 2.2 KB and cost a
  // resident block per SM at width 128).
  struct AOperand {
    int32_t* records;
    int record_stage_words;
    int lane;
    uint32_t lane_mask;  // pattern bits below this lane's

    __device__ __forceinline__ AOperand(const KernelArguments& args, float* after_b, int lane_)
        : records(reinterpret_cast<int32_t*>(after_b)),
          record_stage_words(args.record_words + 2),
          lane(lane_),
          lane_mask((1u << lane_) - 1u) {}

    __device__ __forceinline__ void stage(const KernelArguments& args, const Indices& indices, int stage_index) {
      const int threads = static_cast<int>(blockDim.x);
      const int thread = static_cast<int>(threadIdx.x);
      int32_t* const sm_record = records + stage_index * record_stage_words;
      // At most a stage's capacity, whatever the indices say.
      const int record_words = min(static_cast<int>(indices.record_end - indices.record_begin), args.record_words);
      // Records start 8-byte aligned and hold an even word count (hrpb::block_words).
      for (int i = 2 * thread; i < record_words; i += 2 * threads) {
        async_copy::cp_async8(&sm_record[i], args.a.packed + indices.record_begin + i);
      }
    }
    __device__ __forceinline__ void prefetch(const KernelArguments&, int32_t) {}
    struct Nothing {};
    __device__ __forceinline__ Nothing held() const { return {}; }
    __device__ __forceinline__ BlockA block(Nothing, int stage) const {
      const int32_t* record = records + stage * record_stage_words;
      const int bricks = record[hrpb::kBrickColumns];
      return {record, record + hrpb::values_offset(bricks), record + hrpb::patterns_offset(bricks), lane, lane_mask, 0, {0, 0},
              {nullptr, nullptr}};
    }
  };

  // B fragment rows in_group and in_group + 4 of each k8 step, kGroupTiles
  // columns from group_column(group) in each group of the warp: the stage
  // base and a 32-bit element offset, so that a step's address is int
  // arithmetic on the shared array (no 64-bit address re-formed per step).
  struct BLocation {
    const float* base;
    int offset;
  };
  static __device__ __forceinline__ BLocation b_lane(const float* sm_b, int lane, int warp, int b_stride) {
    return {sm_b, (lane % 4) * b_stride + warp * 8 * kTiles + group_column<kGroupTiles>(lane / 4)};
  }
  static __device__ __forceinline__ BLocation b_step(BLocation b_lane, int stage_offset, int step, int b_stride) {
    return {b_lane.base, b_lane.offset + stage_offset + step * 8 * b_stride};
  }
  struct BFragment {
    float upper[kGroupTiles], lower[kGroupTiles];  // B rows in_group and in_group + 4
  };
  static __device__ __forceinline__ void load_b(BLocation b_step, int q, int, int b_stride, BFragment& b) {
    load_shared(b_step.base + (b_step.offset + q * 8 * kGroupTiles), b.upper);
    load_shared(b_step.base + (b_step.offset + q * 8 * kGroupTiles + 4 * b_stride), b.lower);
  }
  static __device__ __forceinline__ void mma(float (&acc)[4], const uint32_t (&a)[4], const BFragment& b, int i) {
    mma_tf32(acc, a, to_tf32(b.upper[i]), to_tf32(b.lower[i]));
  }

  // C fragment of tile q·kGroup + i: c0, c1 at (row g, n = 2t, 2t + 1), c2,
  // c3 at row g + 8; column n of that tile is group column
  // group_column(n) + i, so the lane holds kGroup consecutive columns of a
  // row for n = 2t and for n = 2t + 1 (adjacent when kGroup is 1).
  static __device__ __forceinline__ void store(const KernelArguments& args, const float (&acc)[kTiles][4], int lane,
                                               int warp, int, int64_t chunk_begin, int chunk_width, int64_t v) {
    constexpr int kGroup = kGroupTiles;
    constexpr int kGroups = kTiles / kGroup;
    constexpr int kGroupColumns = 8 * kGroup;
    const int group = lane / 4;
    const int in_group = lane % 4;
    const int64_t panel = args.virtual_panel[v];
    const int32_t slot = args.virtual_slot[v];
    const int64_t chunk_end = chunk_begin + chunk_width;
#pragma unroll
    for (int q = 0; q < kGroups; ++q) {
      const int64_t group_begin = chunk_begin + warp * 8 * kTiles + q * kGroupColumns;
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
          store_row_piece(args, odd, row, row_in_panel, group_begin + group_column<kGroup>(2 * in_group + 1),
                          chunk_end, slot);
        } else {
          const float both[2] = {even[0], odd[0]};
          store_row_piece(args, both, row, row_in_panel, even_col, chunk_end, slot);
        }
      }
    }
  }
};

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
  shape.chunk = kHrpbWarps * warp_columns;
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
    case 1: return hrpb_spmm::spmm_hrpb_kernel<Tf32Mma<1>>;
    case 2: return hrpb_spmm::spmm_hrpb_kernel<Tf32Mma<2>>;
    case 4: return hrpb_spmm::spmm_hrpb_kernel<Tf32Mma<4>>;
    default: return hrpb_spmm::spmm_hrpb_kernel<Tf32Mma<8>>;
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
                             {a.size_ptr.data<int64_t>(), a.packed_blocks.data<int32_t>()},
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
    hrpb_spmm::merge_split_panels_kernel<float><<<static_cast<unsigned>(s.num_split_panels), 256, 0, stream>>>(
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
