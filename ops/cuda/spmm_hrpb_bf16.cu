// Tensor-core SpMM on HRPB in BF16: mma.sync m16n8k16, bf16 operands, fp32
// accumulation, C rounded to bfloat16 once. The TF32 kernel's structure
// (ops/cuda/spmm_hrpb.cu: one thread block per virtual panel and chunk of
// 256 features, four warps of 8 n-tiles, double-buffered stages of a block's
// 16 B rows, bulk copies of the rows) with one k16 step per block instead of
// two k8 steps, and A read ready-made instead of decoded from the record.
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
#include "ops/cuda/hrpb_row_slices.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/pad_features.cuh"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

using namespace async_copy;

constexpr int kWarps = 4;                            // warps of a thread block over a full chunk
constexpr int kTiles = 8;                            // mma n-tiles per warp
constexpr int kWarpColumns = 8 * kTiles;             // 64
constexpr int kChunk = kWarps * kWarpColumns;        // feature columns of a thread block: 256
constexpr int kGroupTiles = 4;                       // tiles of one store group
constexpr int kGroupColumns = 8 * kGroupTiles;       // 32: staged rows are padded to a multiple of this
constexpr int kGroups = kTiles / kGroupTiles;        // 2 per warp
constexpr unsigned kFullWarp = 0xffffffffu;

struct Bf16Arguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* virtual_slot;
  const int32_t* active_cols;
  const uint4* fragments;  // [num_blocks · 32] A fragments (ops/cuda/hrpb_bf16_fragments.cuh)
  const uint16_t* b;       // bfloat16 bits
  uint16_t* c;             // bfloat16 bits
  float* partials;    // [slots, 16, width] float32 sums of split panels' parts; nullptr without splits
  int64_t num_rows;
  int64_t width;       // columns of C, and of B that count
  int64_t b_width;     // elements per B row: the width rounded up to 8 (columns past the width zero), B 16-byte aligned
  int b_stride;        // bf16 elements per staged B row (launch_shape)
  bool vector_stores;  // C 16-byte aligned and the width a multiple of 8: 16-byte stores of C
};

// Four transposed 8×8 bf16 matrices; lane l gives the shared address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void load_matrices_transposed(unsigned address, uint32_t (&out)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
               : "r"(address));
}

// Lanes 0-15: the original column of the block's compacted column `lane`; else -1.
__device__ __forceinline__ int32_t load_lane_column(const Bf16Arguments& args, int32_t block, int lane) {
  return lane < hrpb::kBlockCols ? args.active_cols[int64_t{block} * hrpb::kBlockCols + lane] : -1;
}

// B rows of a block by 16-byte cp.async (8 bf16), zeros for padding columns
// and for staged columns past the chunk. 16 · pieces is a multiple of 64, so
// every lane of a warp runs the same iterations (full-warp shuffles).
__device__ __forceinline__ void stage_rows_by_piece(const Bf16Arguments& args, int32_t lane_column,
                                                    int64_t chunk_begin, int chunk_width, int staged_width,
                                                    uint16_t* sm_b) {
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int pieces = staged_width / 8;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  if (hrpb_staging::stage_rows_by_slices(args.b, args.b_width, args.b_stride, lane_column, chunk_begin, chunk_width,
                                         staged_width, sm_b)) {
    return;  // widths 32 and 64
  }
  for (int i = thread; i < hrpb::kBlockCols * pieces; i += threads) {
    const int k = i / pieces;
    const int j = 8 * (i - k * pieces);
    const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
    if (column >= 0 && j < chunk_width) {
      cp_async16(&sm_b[k * args.b_stride + j], args.b + int64_t{column} * args.b_width + chunk_begin + j);
    } else {
      *reinterpret_cast<uint4*>(&sm_b[k * args.b_stride + j]) = zero;
    }
  }
}

// B rows of a block by one bulk copy per row with a column, completing on
// `barrier` (rows issued by warp k mod warps, as in the TF32 kernel); zeros as above.
__device__ __forceinline__ void stage_rows_by_bulk_copy(const Bf16Arguments& args, int32_t lane_column,
                                                        int64_t chunk_begin, int chunk_width, int staged_width,
                                                        uint16_t* sm_b, uint64_t* barrier) {
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread % 32;
  const unsigned with_column = __ballot_sync(kFullWarp, lane_column >= 0);
  const unsigned row_bytes = static_cast<unsigned>(chunk_width) * sizeof(uint16_t);
  if (thread == 0) barrier_arrive_expect_bytes(barrier, __popc(with_column) * row_bytes);
  const int warps = threads / 32;
  if (lane < hrpb::kBlockCols && lane % warps == thread / 32 && lane_column >= 0) {
    bulk_copy(sm_b + lane * args.b_stride, args.b + int64_t{lane_column} * args.b_width + chunk_begin, row_bytes,
              barrier);
  }
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (unsigned padding = ~with_column & 0xffffu; padding != 0; padding &= padding - 1) {
    uint16_t* row = sm_b + (__ffs(padding) - 1) * args.b_stride;
    for (int j = 8 * thread; j < chunk_width; j += 8 * threads) *reinterpret_cast<uint4*>(row + j) = zero;
  }
  const int tail_pieces = (staged_width - chunk_width) / 8;  // both multiples of 8 here
  for (int i = thread; i < hrpb::kBlockCols * tail_pieces; i += threads) {
    const int k = i / tail_pieces;
    *reinterpret_cast<uint4*>(sm_b + k * args.b_stride + chunk_width + 8 * (i - k * tail_pieces)) = zero;
  }
}

// The B rows of a block into one stage; its cp.async copies are one group.
// kBulk: one bulk copy per row (rows of kHrpbBf16BulkMinimumColumns or more).
template <bool kBulk>
__device__ __forceinline__ void stage_block(const Bf16Arguments& args, int32_t lane_column, int64_t chunk_begin,
                                            int chunk_width, int staged_width, uint16_t* sm_b, uint64_t* barrier) {
  // B columns of the chunk with the zero padding of the last one (b_width is the width rounded up to 8).
  const int b_columns = (chunk_width + 7) / 8 * 8;
  if constexpr (kBulk) {
    stage_rows_by_bulk_copy(args, lane_column, chunk_begin, b_columns, staged_width, sm_b, barrier);
  } else {
    stage_rows_by_piece(args, lane_column, chunk_begin, b_columns, staged_width, sm_b);
  }
  cp_async_commit();
}

// This lane's A fragment of `block`, bfloat16 pairs ready for the mma.
__device__ __forceinline__ uint4 load_fragment(const Bf16Arguments& args, int32_t block, int lane) {
  return __ldg(args.fragments + int64_t{block} * 32 + lane);
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

// Blocks an SM: the bulk-copy kernel asks for seven (72 registers, none
// spilled; six gave 79 and ran 0-9% slower on the FEM matrices, eight within
// 4% of seven either way). The 16-byte-copy kernel asks for eight (64
// registers, 28 bytes spilled, against 12 at seven): on the H200 it ran 1-4%
// faster on the four large FEM matrices and 0-13% on the stencils at widths
// 32-256, 1.7% slower on the 3D quadratic FEM matrix at 64 and 1-2% on the
// 37K-entry mesh (docs/kernels.md).
// kBulk: B rows staged by bulk copies, else by 16-byte copies over the
// threads (HrpbRowStaging); two kernels, so that each path's registers and
// schedule are its own.
template <bool kBulk>
__global__ void __launch_bounds__(32 * kWarps, kBulk ? 7 : 8) spmm_hrpb_bf16_kernel(Bf16Arguments args) {
  // Dynamic shared memory: two stages of 16 B rows (b_stride bf16 each).
  extern __shared__ uint4 dynamic_shared[];
  uint16_t* const sm_b = reinterpret_cast<uint16_t*>(dynamic_shared);
  const int stage_elements = hrpb::kBlockCols * args.b_stride;
  __shared__ uint64_t stage_barrier[2];

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int group = lane / 4;     // groupID of the mma fragment layouts
  const int in_group = lane % 4;  // threadID_in_group
  const int64_t v = blockIdx.x;
  const int64_t chunk_begin = int64_t{blockIdx.y} * kChunk;
  const int chunk_width = static_cast<int>(args.width - chunk_begin < kChunk ? args.width - chunk_begin : kChunk);
  const int staged_width = (chunk_width + kGroupColumns - 1) / kGroupColumns * kGroupColumns;
  const int warp_groups =
      min(kGroups, max(0, (chunk_width - warp * kWarpColumns + kGroupColumns - 1) / kGroupColumns));

  // This lane's ldmatrix row: matrix m = lane / 8 is k half m & 1 of tile
  // m >> 1 of a tile pair; its row r = lane % 8 is mma k 8h + r, block
  // column 8h + 4(r & 1) + (r >> 1) (see the top).
  const int matrix_row = lane & 7;
  const int k_half = (lane >> 3) & 1;
  const int row_of_lane = 8 * k_half + 4 * (matrix_row & 1) + (matrix_row >> 1);
  const unsigned b_lane =
      shared_address(sm_b + row_of_lane * args.b_stride + warp * kWarpColumns + 8 * (lane >> 4));

  float acc[kTiles][4];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;

  if (kBulk && threadIdx.x == 0) {
    barrier_init(&stage_barrier[0]);
    barrier_init(&stage_barrier[1]);
    barrier_init_fence();
  }
  __syncthreads();

  const int32_t block_begin = args.virtual_block_ptr[v];
  const int32_t block_end = args.virtual_block_ptr[v + 1];
  int32_t ahead = -1;  // a block's columns are loaded one block before staging its rows
  uint4 next_fragment = make_uint4(0, 0, 0, 0);  // and its A fragment one block before the mma
  if (block_begin < block_end) {
    stage_block<kBulk>(args, load_lane_column(args, block_begin, lane), chunk_begin, chunk_width, staged_width, sm_b,
                &stage_barrier[0]);
    next_fragment = load_fragment(args, block_begin, lane);
    if (block_begin + 1 < block_end) ahead = load_lane_column(args, block_begin + 1, lane);
  }
  for (int32_t block = block_begin; block < block_end; ++block) {
    const int stage = (block - block_begin) & 1;
    const uint32_t a[4] = {next_fragment.x, next_fragment.y, next_fragment.z, next_fragment.w};
    if (block + 1 < block_end) {
      // The other stage was last read by block - 1, before the barrier that ended its iteration.
      stage_block<kBulk>(args, ahead, chunk_begin, chunk_width, staged_width, sm_b + (stage ^ 1) * stage_elements,
                  &stage_barrier[stage ^ 1]);
      next_fragment = load_fragment(args, block + 1, lane);
      if (block + 2 < block_end) ahead = load_lane_column(args, block + 2, lane);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    if constexpr (kBulk) barrier_wait(&stage_barrier[stage], ((block - block_begin) >> 1) & 1);
    __syncthreads();

    const unsigned b_stage = b_lane + static_cast<unsigned>(stage * stage_elements * sizeof(uint16_t));
#pragma unroll
    for (int q = 0; q < kGroups; ++q) {
      if (q >= warp_groups) break;  // warp-uniform: the group lies past the chunk
#pragma unroll
      for (int pair = 0; pair < kGroupTiles / 2; ++pair) {
        const int tile = q * kGroupTiles + 2 * pair;
        uint32_t b[4];
        load_matrices_transposed(b_stage + static_cast<unsigned>(8 * tile * sizeof(uint16_t)), b);
        mma_bf16(acc[tile], a, b[0], b[1]);
        mma_bf16(acc[tile + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // before the next iteration's copies overwrite this stage
  }

  // C: tile i holds c0, c1 at (row g, columns 2t, 2t + 1) and c2, c3 at row g + 8.
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

// C rows of split panel s = the sum of its float32 slots in slot order, rounded to bfloat16 once.
__global__ void merge_split_panels_bf16_kernel(const int32_t* split_panel, const int32_t* split_slot_ptr,
                                               const float* partials, uint16_t* c, int64_t num_rows, int64_t width) {
  const int64_t s = blockIdx.x;
  const int64_t panel = split_panel[s];
  const int64_t tile = hrpb::kPanelRows * width;
  for (int64_t i = threadIdx.x; i < tile; i += blockDim.x) {
    const int64_t row = panel * hrpb::kPanelRows + i / width;
    if (row >= num_rows) break;
    float sum = 0.0f;
    for (int32_t part = split_slot_ptr[s]; part < split_slot_ptr[s + 1]; ++part) sum += partials[part * tile + i];
    c[row * width + i % width] = bfloat16::round_bits(sum);
  }
}

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
                           reinterpret_cast<const uint4*>(fragments.data<int32_t>()),
                           reinterpret_cast<const uint16_t*>(b_rows.rows),
                           reinterpret_cast<uint16_t*>(c.data<bfloat16>()),
                           partials.defined() ? partials.data<float>() : nullptr,
                           a.num_rows,
                           width,
                           b_rows.width,
                           shape.b_stride,
                           width % 8 == 0 && aligned16(c.raw_data())};
  const dim3 grid(static_cast<unsigned>(s.num_virtual_panels), static_cast<unsigned>(chunks));
  const auto kernel = b_rows.width >= kHrpbBf16BulkMinimumColumns && staging == HrpbRowStaging::BulkCopies
                          ? spmm_hrpb_bf16_kernel<true>
                          : spmm_hrpb_bf16_kernel<false>;
  kernel<<<grid, static_cast<unsigned>(32 * shape.warps), shape.shared_bytes, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("spmm_hrpb_bf16_kernel");
  if (partials.defined()) {
    merge_split_panels_bf16_kernel<<<static_cast<unsigned>(s.num_split_panels), 256, 0, stream>>>(
        s.split_panel.data<int32_t>(), s.split_slot_ptr.data<int32_t>(), partials.data<float>(),
        reinterpret_cast<uint16_t*>(c.data<bfloat16>()), a.num_rows, width);
    SGNN_CUDA_CHECK_LAUNCH("merge_split_panels_bf16_kernel");
  }
}

}  // namespace sgnn::ops
