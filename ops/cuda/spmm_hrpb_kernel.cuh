// The tensor-core SpMM on HRPB (cuTeSpMM, Algorithm 1), one kernel for
// every precision, templated on an MMA policy in the spirit of CuTe's
// MMA_Traits: the policy names the operand element, the fragment shapes
// (k of one mma step, n-tiles per warp, tiles per B load), how A and B
// fragments are loaded and converted, the mma instruction, and how C is
// written. The policies: ops/cuda/spmm_hrpb.cu (TF32, m16n8k8, A decoded
// from the staged block records) and ops/cuda/spmm_hrpb_bf16.cu (BF16,
// m16n8k16, A fragments decoded once per HRPB); each file instantiates its
// own, so the two precisions compile in parallel.
//
// What the kernel itself does, the same for both:
//   - one thread block of kHrpbWarps warps per (virtual row panel, chunk of
//     the features); each warp owns 8 · kTiles columns of the chunk;
//   - per block of the panel, the 16 B rows it needs (its activeCols) are
//     staged in dynamic shared memory, double-buffered: the copies of block
//     i + 1 are in flight while block i's mma steps run (a block is one k16
//     or two k8 steps, so unhidden staging latency dominated at widths
//     128-256);
//   - B rows go by one bulk (TMA) copy per row completing on a shared-memory
//     barrier where the policy says so (kBulk), else by 16-byte cp.async over
//     the threads; rows are zero-padded to whole groups of columns;
//   - C stays in registers over the whole panel and is written once by the
//     policy.
// B whose width is not a multiple of a 16-byte piece or whose rows are not
// 16-byte aligned is first copied into zero-padded rows by the launcher
// (ops/cuda/pad_features.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/bfloat16.hpp"
#include "core/hrpb.hpp"
#include "ops/cuda/async_copy.cuh"
#include "ops/cuda/hrpb_row_slices.cuh"

namespace sgnn::ops::hrpb_spmm {

inline constexpr int kHrpbWarps = 4;  // warps of a thread block over a full chunk of feature columns
inline constexpr unsigned kFullWarp = 0xffffffffu;

// The launch's arguments: T is the B and C element (float, or uint16_t for
// bfloat16 bits); AArguments what the policy reads its A fragments from.
template <typename T, typename AArguments>
struct Arguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* virtual_slot;
  const int32_t* active_cols;
  AArguments a;
  const T* b;
  T* c;
  float* partials;  // [slots, 16, width] float32 parts of split panels, summed by merge_split_panels_kernel; else nullptr
  int64_t num_rows;
  int64_t width;       // columns of C, and of B that count
  int64_t b_width;     // elements per B row: the width rounded up to a 16-byte piece (columns past it zero), B 16-byte aligned
  int b_stride;        // elements per staged B row in shared memory (the launcher's shape)
  int record_words;    // policies that stage block records: words of a staged record (a stage holds 2 more); else 0
  bool vector_stores;  // C rows allow the policy's vector stores
};

// B rows of a block by 16-byte cp.async, zeros for padding columns and for
// staged columns past the chunk. chunk_width: B columns of the chunk, a
// multiple of the piece. 16 · pieces is a multiple of 32: every lane of a
// warp runs the same iterations, so the full-warp shuffles are safe.
template <typename T, typename Args>
__device__ __forceinline__ void stage_rows_by_pieces(const Args& args, int32_t lane_column, int64_t chunk_begin,
                                                     int chunk_width, int staged_width, T* sm_b) {
  constexpr int kPiece = 16 / static_cast<int>(sizeof(T));
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int pieces = staged_width / kPiece;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  if (hrpb_staging::stage_rows_by_slices(args.b, args.b_width, args.b_stride, lane_column, chunk_begin, chunk_width,
                                         staged_width, sm_b)) {
    return;  // rows whose pieces are a power of two dividing the thread block
  }
  for (int i = thread; i < hrpb::kBlockCols * pieces; i += threads) {
    const int k = i / pieces;
    const int j = kPiece * (i - k * pieces);
    const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
    if (column >= 0 && j < chunk_width) {
      async_copy::cp_async16(&sm_b[k * args.b_stride + j], args.b + int64_t{column} * args.b_width + chunk_begin + j);
    } else {
      *reinterpret_cast<uint4*>(&sm_b[k * args.b_stride + j]) = zero;
    }
  }
}

// B rows of a block by one bulk (TMA) copy per row with a column, completing
// on `barrier`: 16 copy instructions per block instead of one per 16 bytes;
// zeros as above.
template <typename T, typename Args>
__device__ __forceinline__ void stage_rows_by_bulk_copy(const Args& args, int32_t lane_column, int64_t chunk_begin,
                                                        int chunk_width, int staged_width, T* sm_b,
                                                        uint64_t* barrier) {
  constexpr int kPiece = 16 / static_cast<int>(sizeof(T));
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread % 32;
  const unsigned with_column = __ballot_sync(kFullWarp, lane_column >= 0);
  const unsigned row_bytes = static_cast<unsigned>(chunk_width) * sizeof(T);
  if (thread == 0) async_copy::barrier_arrive_expect_bytes(barrier, __popc(with_column) * row_bytes);
  // Row k is issued by warp k mod warps: a warp issues its bulk copies one
  // lane after another, so one warp issuing all 16 held the others at the
  // barrier. (A copy may complete before thread 0 announces the bytes: the
  // transaction count may go negative until then, and the phase cannot end
  // before that arrival.)
  const int warps = threads / 32;
  if (lane < hrpb::kBlockCols && lane % warps == thread / 32 && lane_column >= 0) {
    async_copy::bulk_copy(sm_b + lane * args.b_stride, args.b + int64_t{lane_column} * args.b_width + chunk_begin,
                          row_bytes, barrier);
  }
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (unsigned padding = ~with_column & 0xffffu; padding != 0; padding &= padding - 1) {
    T* row = sm_b + (__ffs(padding) - 1) * args.b_stride;
    for (int j = kPiece * thread; j < chunk_width; j += kPiece * threads) *reinterpret_cast<uint4*>(row + j) = zero;
  }
  const int tail_pieces = (staged_width - chunk_width) / kPiece;  // both multiples of the piece here
  for (int i = thread; i < hrpb::kBlockCols * tail_pieces; i += threads) {
    const int k = i / tail_pieces;
    *reinterpret_cast<uint4*>(sm_b + k * args.b_stride + chunk_width + kPiece * (i - k * tail_pieces)) = zero;
  }
}

// The kernel. Mma (the policy) provides:
//   Element              B and C element (float or uint16_t)
//   kTiles, kGroupTiles  mma n-tiles per warp; tiles of one column group
//                        (staged rows are padded to whole groups)
//   kLoadTiles           n-tiles whose B fragments one load_b gives
//   kSteps               mma k steps per HRPB block (16 / k)
//   kBulk                B rows by bulk copies, else by 16-byte copies
//   kIndicesAhead        a block's indices are loaded one block before it is staged
//   kMinBlocks           the launch bounds' minimum resident blocks
//   Indices, load_indices(args, block, lane), lane_column(indices)
//   AOperand             per-thread A state: AOperand(args, shared after the B
//                        stages, lane); stage(args, indices, stage) copies what
//                        the A fragments of a block need (cp.async, same group
//                        as the B rows); prefetch(args, block) loads ahead;
//                        held() what the current block uses (taken before the
//                        next prefetch); block(held, stage) a BlockA whose
//                        begin_step(step) says whether the k step has an
//                        entry (false: skipped, warp-uniform) and whose
//                        fragment(a) then gives that step's a[4]
//   b_lane(sm_b, lane, warp, b_stride): where this lane's B fragments lie in
//                        a stage; b_step(b_lane, stage offset, step, b_stride)
//                        in the stage's rows of one k step
//   BFragment, load_b(b_step, q, p, b_stride, b): tiles p·kLoadTiles.. of
//                        group q; mma(acc, a, b, i) with tile i of those
//   store(args, acc, lane, warp, warp_groups, chunk_begin, chunk_width, v)
template <typename Mma>
__global__ void __launch_bounds__(32 * kHrpbWarps, Mma::kMinBlocks)
    spmm_hrpb_kernel(typename Mma::KernelArguments args) {
  using T = typename Mma::Element;
  constexpr int kTiles = Mma::kTiles;
  constexpr int kGroupTiles = Mma::kGroupTiles;
  constexpr int kGroups = kTiles / kGroupTiles;
  constexpr int kGroupColumns = 8 * kGroupTiles;
  constexpr int kWarpColumns = 8 * kTiles;
  constexpr int kChunk = kHrpbWarps * kWarpColumns;
  constexpr int kPiece = 16 / static_cast<int>(sizeof(T));
  constexpr bool kBulk = Mma::kBulk;
  // Dynamic shared memory: two stages of 16 B rows (b_stride elements each),
  // then what the policy's A operand stages.
  extern __shared__ uint4 dynamic_shared[];
  T* const sm_b = reinterpret_cast<T*>(dynamic_shared);
  const int stage_elements = hrpb::kBlockCols * args.b_stride;
  __shared__ uint64_t stage_barrier[2];

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int64_t v = blockIdx.x;
  const int64_t chunk_begin = int64_t{blockIdx.y} * kChunk;
  const int chunk_width = static_cast<int>(args.width - chunk_begin < kChunk ? args.width - chunk_begin : kChunk);
  const int staged_width = (chunk_width + kGroupColumns - 1) / kGroupColumns * kGroupColumns;
  // The warp's column groups inside the chunk.
  const int warp_groups =
      min(kGroups, max(0, (chunk_width - warp * kWarpColumns + kGroupColumns - 1) / kGroupColumns));
  const auto b_lane = Mma::b_lane(sm_b, lane, warp, args.b_stride);
  typename Mma::AOperand a_operand(args, sm_b + 2 * stage_elements, lane);

  float acc[kTiles][4];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;

  if (kBulk && threadIdx.x == 0) {
    async_copy::barrier_init(&stage_barrier[0]);
    async_copy::barrier_init(&stage_barrier[1]);
    async_copy::barrier_init_fence();
  }
  __syncthreads();

  // B columns of the chunk with the zero padding of the last piece: where
  // this is computed is a register-allocation choice, timed on the H200
  // against the two kernels this one replaced (bench/compare_builds.sh).
  // Once per kernel for 16-byte copies: the BF16 copy instance's spill
  // loads go from 32 to 28 bytes, as in the kernel it replaced, and its time
  // on the 64^2 FEM mesh at width 128 from 1.027x that kernel's to 1.02x.
  // Once per block for bulk copies: hoisted, the BF16 bulk kernel ran 2 %
  // slower on the 128^2 stencil at widths 16 and 32.
  const int chunk_columns = (chunk_width + kPiece - 1) / kPiece * kPiece;
  // The copies of a block into stage `stage`: the policy's A data, then its
  // B rows; one cp.async group. Every warp holds the same 16 columns, so
  // branches on them are uniform over the thread block.
  const auto stage_block = [&](const typename Mma::Indices& indices, int stage) {
    a_operand.stage(args, indices, stage);
    T* const stage_b = sm_b + stage * stage_elements;
    if constexpr (kBulk) {
      const int b_columns = (chunk_width + kPiece - 1) / kPiece * kPiece;
      stage_rows_by_bulk_copy(args, Mma::lane_column(indices), chunk_begin, b_columns, staged_width, stage_b,
                              &stage_barrier[stage]);
    } else {
      stage_rows_by_pieces(args, Mma::lane_column(indices), chunk_begin, chunk_columns, staged_width, stage_b);
    }
    async_copy::cp_async_commit();
  };

  const int32_t block_begin = args.virtual_block_ptr[v];
  const int32_t block_end = args.virtual_block_ptr[v + 1];
  typename Mma::Indices ahead{};
  if (block_begin < block_end) {
    stage_block(Mma::load_indices(args, block_begin, lane), 0);
    a_operand.prefetch(args, block_begin);
    if (Mma::kIndicesAhead && block_begin + 1 < block_end) ahead = Mma::load_indices(args, block_begin + 1, lane);
  }
  for (int32_t block = block_begin; block < block_end; ++block) {
    const int stage = (block - block_begin) & 1;
    const auto held = a_operand.held();
    if (block + 1 < block_end) {
      // The other stage was last read by block - 1, before the barrier that ended its iteration.
      const typename Mma::Indices next = Mma::kIndicesAhead ? ahead : Mma::load_indices(args, block + 1, lane);
      stage_block(next, stage ^ 1);
      a_operand.prefetch(args, block + 1);
      if (Mma::kIndicesAhead && block + 2 < block_end) ahead = Mma::load_indices(args, block + 2, lane);
      async_copy::cp_async_wait<1>();  // this block's group has landed; the next one may still be in flight
    } else {
      async_copy::cp_async_wait<0>();
    }
    // The n-th use of a stage's barrier completes its phase n (parity n & 1).
    if constexpr (kBulk) async_copy::barrier_wait(&stage_barrier[stage], ((block - block_begin) >> 1) & 1);
    __syncthreads();

    auto block_a = a_operand.block(held, stage);
    // The stage's base once per block; a step adds only its row offset.
    const auto b_stage = Mma::b_step(b_lane, stage * stage_elements, 0, args.b_stride);
#pragma unroll
    for (int step = 0; step < Mma::kSteps; ++step) {
      if (!block_a.begin_step(step)) continue;  // warp-uniform: no brick in this step
      uint32_t a[4];
      block_a.fragment(a);
      const auto b_step = Mma::b_step(b_stage, 0, step, args.b_stride);
#pragma unroll
      for (int q = 0; q < kGroups; ++q) {
        if (q >= warp_groups) break;  // warp-uniform: the group lies past the chunk
#pragma unroll
        for (int p = 0; p < kGroupTiles / Mma::kLoadTiles; ++p) {
          typename Mma::BFragment b;
          Mma::load_b(b_step, q, p, args.b_stride, b);
#pragma unroll
          for (int i = 0; i < Mma::kLoadTiles; ++i) Mma::mma(acc[q * kGroupTiles + p * Mma::kLoadTiles + i], a, b, i);
        }
      }
    }
    __syncthreads();  // before the next iteration's copies overwrite this stage
  }

  Mma::store(args, acc, lane, warp, warp_groups, chunk_begin, chunk_width, v);
}

// Deterministic merge: C rows of split panel s = the sum of its float32
// slots in slot order, written once (bfloat16: rounded once).
template <typename T>
__global__ void merge_split_panels_kernel(const int32_t* split_panel, const int32_t* split_slot_ptr,
                                          const float* partials, T* c, int64_t num_rows, int64_t width) {
  const int64_t s = blockIdx.x;
  const int64_t panel = split_panel[s];
  const int64_t tile = hrpb::kPanelRows * width;
  for (int64_t i = threadIdx.x; i < tile; i += blockDim.x) {
    const int64_t row = panel * hrpb::kPanelRows + i / width;
    if (row >= num_rows) break;
    float sum = 0.0f;
    for (int32_t part = split_slot_ptr[s]; part < split_slot_ptr[s + 1]; ++part) sum += partials[part * tile + i];
    if constexpr (std::is_same_v<T, float>) {
      c[row * width + i % width] = sum;
    } else {
      c[row * width + i % width] = bfloat16::round_bits(sum);
    }
  }
}

}  // namespace sgnn::ops::hrpb_spmm
