// Tensor-core SpMM on HRPB in BF16: the MMA policy of the HRPB kernel
// (ops/cuda/spmm_hrpb_kernel.cuh) for mma.sync m16n8k16, bf16 operands, fp32
// accumulation, C rounded to bfloat16 once, and its launch. Chunks of 256
// features, four warps of 8 n-tiles, one k16 step per block instead of the
// TF32 policy's two k8 steps, and A read ready-made instead of decoded from
// the record.
//
// k mapping. A block is 16 compacted columns in four 16×4 bricks. The mma's
// k order is free as long as A and B agree, so mma k = 2t + j (j = 0, 1) is
// column t of brick j and k = 8 + 2t + j column t of brick 2 + j. Lane
// 4g + t then needs, in every brick, the cells (row g, col t) and (row g + 8,
// col t): pattern bits `lane` and `lane + 32`, exactly the cells the TF32
// kernel decodes. That decode (popcounts and selects, repeated by every warp
// for every block) cost more instructions than the mma work, so it is done
// once per HRPB (ops/cuda/hrpb_bf16_fragments.cuh): a lane loads its a[4],
// bfloat16 already, with one 16-byte load a block ahead of its use.
// B fragments come from ldmatrix.x4.trans on the staged row-major bf16
// rows: each of its 8-lane address phases points at the B rows (block
// columns) of mma k 0..7 or 8..15 in that order, 8h + 4(r & 1) + (r >> 1)
// for matrix row r, so one instruction loads the k16 B fragments of two
// n-tiles.
//
// C: each lane holds, per n-tile, columns 2t and 2t + 1 of rows g and g + 8
// (one bf16x2). A 4×4 exchange among the four lanes of a row (three
// shuffles per row and group of four tiles) gives lane t all 8 columns of
// tile t of the group: 16-byte stores, 64 contiguous bytes per row. Split
// panels always go through float32 slots summed in slot order by a second
// kernel (no bf16 atomics: one rounding of C, bitwise reproducible).
//
// B whose width is not a multiple of 8 or whose rows are not 16-byte aligned
// is first copied into zero-padded rows (ops/cuda/pad_features.cuh), as in
// the TF32 kernel: 16-byte copies only.
#include <cuda_bf16.h>

#include <cstdint>

#include "core/bfloat16.hpp"
#include "core/cuda/launch.cuh"
#include "ops/cuda/async_copy.cuh"
#include "ops/cuda/hrpb_bf16_fragments.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/pad_features.cuh"
#include "ops/cuda/spmm_hrpb_kernel.cuh"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

using hrpb_spmm::kFullWarp;
using hrpb_spmm::kHrpbWarps;

constexpr int kTiles = 8;                            // mma n-tiles per warp
constexpr int kWarpColumns = 8 * kTiles;             // 64
constexpr int kChunk = kHrpbWarps * kWarpColumns;    // feature columns of a thread block: 256
constexpr int kGroupTiles = 4;                       // tiles of one store group
constexpr int kGroupColumns = 8 * kGroupTiles;       // 32: staged rows are padded to a multiple of this
constexpr int kGroups = kTiles / kGroupTiles;        // 2 per warp

// Where the BF16 kernel reads A: [num_blocks · 32] fragments (ops/cuda/hrpb_bf16_fragments.cuh).
struct FragmentArguments {
  const uint4* fragments;
};
using Bf16Arguments = hrpb_spmm::Arguments<uint16_t, FragmentArguments>;

// Four transposed 8×8 bf16 matrices; lane l gives the shared address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void load_matrices_transposed(unsigned address, uint32_t (&out)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
               : "r"(address));
}

// One register of `parts` chosen by a lane-dependent index, without local memory.
__device__ __forceinline__ uint32_t pick(const uint32_t (&parts)[4], int index) {
  return index == 0 ? parts[0] : index == 1 ? parts[1] : index == 2 ? parts[2] : parts[3];
}

// 4×4 exchange among the four lanes of a row (lanes 4g..4g+3, t = lane % 4):
// on entry parts[i] is this lane's bf16x2 of tile i (columns 2t, 2t + 1);
// on exit whole[s] is tile t's columns 2s, 2s + 1, from lane 4g + s. In
// round r lane s sends its parts[(s + r) % 4], which lane (s + r) % 4 wants.
__device__ __forceinline__ void exchange_row_pieces(const uint32_t (&parts)[4], int lane, uint32_t (&whole)[4]) {
  const int t = lane & 3;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int source = (t - r) & 3;
    const uint32_t got = __shfl_sync(kFullWarp, pick(parts, (t + r) & 3), (lane & ~3) | source);
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      if (s == source) whole[s] = got;
    }
  }
}

// The BF16 policy (see ops/cuda/spmm_hrpb_kernel.cuh for the contract).
// Blocks an SM: the bulk-copy kernel asks for seven (72 registers, none
// spilled; six gave 79 and ran 0-9% slower on the FEM matrices, eight within
// 4% of seven either way). The 16-byte-copy kernel asks for eight (64
// registers, 28 bytes spilled, against 12 at seven): on the H200 it ran 1-4%
// faster on the four large FEM matrices and 0-13% on the stencils at widths
// 32-256, 1.7% slower on the 3D quadratic FEM matrix at 64 and 1-2% on the
// 37K-entry mesh (docs/kernels.md).
// kBulkRows: B rows staged by bulk copies, else by 16-byte copies over the
// threads (HrpbRowStaging); two kernels, so that each path's registers and
// schedule are its own. A block's columns are loaded one block before
// staging its rows, and its A fragment one block before the mma.
template <bool kBulkRows>
struct Bf16Mma {
  using Element = uint16_t;
  using KernelArguments = Bf16Arguments;
  static constexpr int kTiles = sgnn::ops::kTiles;
  static constexpr int kGroupTiles = sgnn::ops::kGroupTiles;
  static constexpr int kLoadTiles = 2;  // one ldmatrix.x4 holds the k16 B fragments of two n-tiles
  static constexpr int kSteps = 1;      // k16: the whole block
  static constexpr bool kBulk = kBulkRows;
  static constexpr bool kIndicesAhead = true;
  static constexpr int kMinBlocks = kBulk ? 7 : 8;

  // Lanes 0-15: the original column of the block's compacted column `lane`; else -1.
  using Indices = int32_t;
  static __device__ __forceinline__ Indices load_indices(const KernelArguments& args, int32_t block, int lane) {
    return lane < hrpb::kBlockCols ? args.active_cols[int64_t{block} * hrpb::kBlockCols + lane] : -1;
  }
  static __device__ __forceinline__ int32_t lane_column(Indices indices) { return indices; }

  struct BlockA {
    uint4 fragment_words;
    __device__ __forceinline__ bool begin_step(int) const { return true; }  // one k16 step, the whole block
    __device__ __forceinline__ void fragment(uint32_t (&a)[4]) const {
      a[0] = fragment_words.x, a[1] = fragment_words.y, a[2] = fragment_words.z, a[3] = fragment_words.w;
    }
  };

  // This lane's A fragment of the next block, bfloat16 pairs ready for the mma.
  struct AOperand {
    int lane;
    uint4 next_fragment = make_uint4(0, 0, 0, 0);

    __device__ __forceinline__ AOperand(const KernelArguments&, uint16_t*, int lane_) : lane(lane_) {}
    __device__ __forceinline__ void stage(const KernelArguments&, Indices, int) {}
    __device__ __forceinline__ void prefetch(const KernelArguments& args, int32_t block) {
      next_fragment = __ldg(args.a.fragments + int64_t{block} * 32 + lane);
    }
    __device__ __forceinline__ uint4 held() const { return next_fragment; }
    __device__ __forceinline__ BlockA block(uint4 held_fragment, int) const { return {held_fragment}; }
  };

  // This lane's ldmatrix row: matrix m = lane / 8 is k half m & 1 of tile
  // m >> 1 of a tile pair; its row r = lane % 8 is mma k 8h + r, block
  // column 8h + 4(r & 1) + (r >> 1) (see the top).
  static __device__ __forceinline__ unsigned b_lane(const uint16_t* sm_b, int lane, int warp, int b_stride) {
    const int matrix_row = lane & 7;
    const int k_half = (lane >> 3) & 1;
    const int row_of_lane = 8 * k_half + 4 * (matrix_row & 1) + (matrix_row >> 1);
    return async_copy::shared_address(sm_b + row_of_lane * b_stride + warp * kWarpColumns + 8 * (lane >> 4));
  }
  static __device__ __forceinline__ unsigned b_step(unsigned b_lane, int stage_offset, int, int) {
    return b_lane + static_cast<unsigned>(stage_offset * sizeof(uint16_t));
  }
  using BFragment = uint32_t[4];
  static __device__ __forceinline__ void load_b(unsigned b_step, int q, int pair, int, BFragment& b) {
    const int tile = q * kGroupTiles + 2 * pair;
    load_matrices_transposed(b_step + static_cast<unsigned>(8 * tile * sizeof(uint16_t)), b);
  }
  static __device__ __forceinline__ void mma(float (&acc)[4], const uint32_t (&a)[4], const BFragment& b, int i) {
    mma_bf16(acc, a, b[2 * i], b[2 * i + 1]);
  }

  // C: tile i holds c0, c1 at (row g, columns 2t, 2t + 1) and c2, c3 at row g + 8.
  static __device__ __forceinline__ void store(const KernelArguments& args, const float (&acc)[kTiles][4], int lane,
                                               int warp, int warp_groups, int64_t chunk_begin, int chunk_width,
                                               int64_t v) {
    const int group = lane / 4;
    const int in_group = lane % 4;
    const int64_t panel = args.virtual_panel[v];
    const int32_t slot = args.virtual_slot[v];  // uniform over the thread block
    const int64_t chunk_end = chunk_begin + chunk_width;
#pragma unroll
    for (int q = 0; q < kGroups; ++q) {
      if (q >= warp_groups) break;
      const int64_t group_begin = chunk_begin + warp * kWarpColumns + q * kGroupColumns;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row_in_panel = group + 8 * half;
        const int64_t row = panel * hrpb::kPanelRows + row_in_panel;
        if (slot >= 0) {
          // A part of a split panel: float32 into its slot, rounded once by the merge.
          float* out = args.partials + (int64_t{slot} * hrpb::kPanelRows + row_in_panel) * args.width;
#pragma unroll
          for (int i = 0; i < kGroupTiles; ++i) {
            const int64_t col = group_begin + 8 * i + 2 * in_group;
            if (col < chunk_end) out[col] = acc[q * kGroupTiles + i][2 * half];
            if (col + 1 < chunk_end) out[col + 1] = acc[q * kGroupTiles + i][2 * half + 1];
          }
          continue;
        }
        uint32_t parts[kGroupTiles], whole[kGroupTiles];
#pragma unroll
        for (int i = 0; i < kGroupTiles; ++i) {
          parts[i] = pack_bf16(acc[q * kGroupTiles + i][2 * half], acc[q * kGroupTiles + i][2 * half + 1]);
        }
        exchange_row_pieces(parts, lane, whole);  // every lane takes part, rows past the matrix too
        if (row >= args.num_rows) continue;
        const int64_t col = group_begin + 8 * in_group;  // tile in_group of the group, all 8 columns
        uint16_t* out = args.c + row * args.width + col;
        if (args.vector_stores && col + 8 <= chunk_end) {
          asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(out), "r"(whole[0]), "r"(whole[1]),
                       "r"(whole[2]), "r"(whole[3])
                       : "memory");
          continue;
        }
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (col + e < chunk_end) out[e] = static_cast<uint16_t>(whole[e / 2] >> (16 * (e % 2)));
        }
      }
    }
  }
};

struct Bf16LaunchShape {
  int warps;
  int b_stride;
  std::size_t shared_bytes;
};

// Warps of the first (widest) chunk; staged rows padded to 8 mod 64
// elements (16 mod 128 bytes): the 8 rows of one ldmatrix phase then fall
// in distinct bank groups.
Bf16LaunchShape launch_shape(int64_t width) {
  const int64_t widest = std::min<int64_t>(width, kChunk);
  const int64_t staged = (widest + kGroupColumns - 1) / kGroupColumns * kGroupColumns;
  Bf16LaunchShape shape{};
  shape.warps = static_cast<int>((widest + kWarpColumns - 1) / kWarpColumns);
  shape.b_stride = static_cast<int>((staged + 63) / 64 * 64 + 8);
  shape.shared_bytes = std::size_t{2} * hrpb::kBlockCols * static_cast<std::size_t>(shape.b_stride) * sizeof(uint16_t);
  return shape;
}

}  // namespace

void spmm_hrpb_bf16_forward(Cuda, const Hrpb& a, const Tensor& b, Tensor& c, HrpbRowStaging staging) {
  const Device device = b.device();
  const cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  const int64_t width = b.size(1);
  const HrpbSchedule& s = a.schedule;
  const Bf16LaunchShape shape = launch_shape(width);
  const int64_t chunks = (width + kChunk - 1) / kChunk;
  SGNN_CHECK(chunks <= 65535, "spmm_hrpb: feature width ", width, " needs ", chunks,
             " column chunks; the grid allows 65535");
  if (s.num_virtual_panels == 0) return;  // no rows

  const Tensor fragments = hrpb_bf16_fragments(a);  // built at the first call for this HRPB
  Tensor partials;
  if (s.num_split_panels > 0) partials = Tensor::empty({s.num_slots * hrpb::kPanelRows * width}, DType::Float32, device);
  // Zero-padded, 16-byte aligned B rows (see the top); the padding is a stream-ordered copy, freed after the launch.
  const sparse_cuda::VectorRows<bfloat16> b_rows = sparse_cuda::vector_rows<bfloat16>(b, width);
  const Bf16Arguments args{s.virtual_panel.data<int32_t>(),
                           s.virtual_block_ptr.data<int32_t>(),
                           s.virtual_slot.data<int32_t>(),
                           a.active_cols.data<int32_t>(),
                           {reinterpret_cast<const uint4*>(fragments.data<int32_t>())},
                           reinterpret_cast<const uint16_t*>(b_rows.rows),
                           reinterpret_cast<uint16_t*>(c.data<bfloat16>()),
                           partials.defined() ? partials.data<float>() : nullptr,
                           a.num_rows,
                           width,
                           b_rows.width,
                           shape.b_stride,
                           0,  // no staged records: A comes in fragments
                           width % 8 == 0 && aligned16(c.raw_data())};
  const dim3 grid(static_cast<unsigned>(s.num_virtual_panels), static_cast<unsigned>(chunks));
  const auto kernel = b_rows.width >= kHrpbBf16BulkMinimumColumns && staging == HrpbRowStaging::BulkCopies
                          ? hrpb_spmm::spmm_hrpb_kernel<Bf16Mma<true>>
                          : hrpb_spmm::spmm_hrpb_kernel<Bf16Mma<false>>;
  kernel<<<grid, static_cast<unsigned>(32 * shape.warps), shape.shared_bytes, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("spmm_hrpb_bf16_kernel");
  if (partials.defined()) {
    hrpb_spmm::merge_split_panels_kernel<uint16_t><<<static_cast<unsigned>(s.num_split_panels), 256, 0, stream>>>(
        s.split_panel.data<int32_t>(), s.split_slot_ptr.data<int32_t>(), partials.data<float>(),
        reinterpret_cast<uint16_t*>(c.data<bfloat16>()), a.num_rows, width);
    SGNN_CUDA_CHECK_LAUNCH("merge_split_panels_kernel<bf16>");
  }
}

}  // namespace sgnn::ops
