// Hrpb: cuTeSpMM's Hierarchical Row-Panel-Blocking layout of a sparse matrix
// (Xiang et al., shared/seeds/002 §3.2), kept as Tensors on one device.
//
// Rows are cut in panels of TM = 16 rows. In each panel the active columns
// (those with a non-zero in the panel) are compacted to the left and cut in
// blocks of TK = 16 columns; a block is cut in bricks of 16×4 (the A operand
// of the TF32 mma), each brick a 64-bit pattern (bit r·4 + c set when row r,
// column c of the brick holds a non-zero). Bricks of a block are kept
// column-major (CSC-like: colPtr, rows, patterns), values row-major within a
// brick, all in one packed block record:
//
//   blocked_row_ptr [num_panels + 1]       int32  blocks of panel p: [ptr[p], ptr[p+1])
//   active_cols     [num_blocks * 16]      int32  original column of compacted column j of
//                                                 block b at b·16 + j; -1 past the panel's last
//   size_ptr        [num_blocks + 1]       int64  word offset of block b in packed_blocks
//   packed_blocks   [size_ptr[num_blocks]] int32  32-bit words; block b holds, in order
//        colPtr[5]        bricks of brick column c: [colPtr[c], colPtr[c+1])
//        rows[nb]         brick row of each active brick (always 0: TM = brick height)
//        pad              one 0 word when 5 + nb is odd (patterns stay 8-byte aligned)
//        patterns[nb]     uint64 as (low word, high word)
//        values[nnz_b]    float32 bits, brick after brick, row-major within a brick
//        pad              one 0 word when the block's word count is odd
//
// The schedule (§5 load balance) lists virtual panels: a heavy panel may be
// split along K into consecutive block ranges when that shortens the modelled
// run; the partial results of a split panel are summed with atomics, or, in
// deterministic mode, written to slots and summed in a fixed order.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/tensor.hpp"

#if defined(__CUDACC__)
#define SGNN_HRPB_HD __host__ __device__ __forceinline__
#else
#define SGNN_HRPB_HD inline
#endif

namespace sgnn {

namespace hrpb {
inline constexpr int kPanelRows = 16;                          // TM
inline constexpr int kBlockCols = 16;                          // TK
inline constexpr int kBrickRows = 16;                          // brick_m
inline constexpr int kBrickCols = 4;                           // brick_k
inline constexpr int kBrickColumns = kBlockCols / kBrickCols;  // brick columns per block
inline constexpr int kMaxBricks = (kPanelRows / kBrickRows) * kBrickColumns;
inline constexpr int kColPtrWords = kBrickColumns + 1;
inline constexpr int kMaxBlockWords = kColPtrWords + kMaxBricks + 1 + 2 * kMaxBricks + kPanelRows * kBlockCols + 1;

// Word offsets inside one packed block with `bricks` active bricks.
SGNN_HRPB_HD int rows_offset() { return kColPtrWords; }
SGNN_HRPB_HD int patterns_offset(int bricks) { return (kColPtrWords + bricks + 1) & ~1; }
SGNN_HRPB_HD int values_offset(int bricks) { return patterns_offset(bricks) + 2 * bricks; }
// Rounded up to an even count so that every block starts 8-byte aligned.
SGNN_HRPB_HD int64_t block_words(int bricks, int64_t nnz) { return (values_offset(bricks) + nnz + 1) & ~int64_t{1}; }
// The 64-bit pattern of a brick from its two words (low word first).
SGNN_HRPB_HD uint64_t brick_pattern(const int32_t* words) {
  return static_cast<uint32_t>(words[0]) | (static_cast<uint64_t>(static_cast<uint32_t>(words[1])) << 32);
}
}  // namespace hrpb

// Virtual panels (§5). Consecutive virtual panels of one panel cover
// consecutive block ranges.
//   virtual_panel      [V]     int32  row panel of virtual panel v
//   virtual_block_ptr  [V + 1] int32  blocks of v: [ptr[v], ptr[v+1])
//   virtual_slot       [V]     int32  -1: v is its panel's only virtual panel (stores C);
//                                     else the partial slot of v (its panel is split)
//   split_panel        [S]     int32  the split panels, increasing
//   split_slot_ptr     [S + 1] int32  slots of split panel s: [ptr[s], ptr[s+1])
struct HrpbSchedule {
  Tensor virtual_panel;
  Tensor virtual_block_ptr;
  Tensor virtual_slot;
  Tensor split_panel;
  Tensor split_slot_ptr;
  int64_t num_virtual_panels = 0;
  int64_t num_split_panels = 0;
  int64_t num_slots = 0;
  // The plan's model: concurrent thread blocks (SMs × resident blocks per SM)
  // and the modelled run length in waves without and with the splits.
  int64_t concurrent_blocks = 0;
  double waves_unsplit = 0;
  double waves_planned = 0;
};

// Build-time figures (paper §4 and §6.4).
struct HrpbStatistics {
  int64_t nnz = 0;
  int64_t num_panels = 0;
  int64_t empty_panels = 0;
  int64_t active_columns = 0;  // sum over panels
  int64_t num_blocks = 0;
  int64_t num_bricks = 0;      // active bricks
  int64_t hrpb_bytes = 0;      // all buffers of the format
  int64_t csr_bytes = 0;       // int32 CSR with float32 values, for comparison
  double nnz_per_brick() const;
  // α: average fraction of non-zeros in a column of an active brick.
  double alpha() const;
  // Modelled shared-memory operational intensity, 512·α (TM = brick height, β = 1).
  double operational_intensity() const { return 512.0 * alpha(); }
  // "low" (α < 12.5%), "medium" (< 25%) or "high" synergy with tensor cores.
  const char* synergy() const;
  std::string describe() const;
};

// Device data a kernel derives from an HRPB at its first use, shared by the
// copies of one Hrpb (Hrpb::to starts a fresh one) and freed with the last,
// all built from `source` (the packed_blocks they were read from):
//   bf16_fragments  A in the BF16 kernel's mma fragment order
//                   (ops/cuda/hrpb_bf16_fragments.cuh)
//   row_masks       each block's rows as column masks with their entry counts
//                   (ops/cuda/hrpb_row_masks.cuh), for the HRPB SDDMM
// A copy whose packed_blocks is another tensor drops them all
// (refresh_for) and rebuilds what it uses. Lock `mutex` around any access.
struct HrpbDerived {
  std::mutex mutex;
  Tensor source;
  Tensor bf16_fragments;
  Tensor row_masks;
  // Drops what was derived from another tensor than `packed_blocks` and makes it the source.
  void refresh_for(const Tensor& packed_blocks) {
    if (source.defined() && source.shares_storage_with(packed_blocks)) return;
    bf16_fragments = Tensor();
    row_masks = Tensor();
    source = packed_blocks;
  }
};

struct Hrpb {
  int64_t num_rows = 0;
  int64_t num_cols = 0;
  int64_t nnz = 0;
  int64_t num_panels = 0;
  int64_t num_blocks = 0;
  int64_t max_block_words = 0;  // words of the largest packed block (its staging size on the GPU)
  Tensor blocked_row_ptr;
  Tensor active_cols;
  Tensor size_ptr;
  Tensor packed_blocks;
  HrpbSchedule schedule;
  bool deterministic = false;  // split panels merged in a fixed order (no atomics)
  HrpbStatistics statistics;
  std::shared_ptr<HrpbDerived> derived = std::make_shared<HrpbDerived>();

  Device device() const { return blocked_row_ptr.device(); }
  Hrpb to(Device device) const;
  std::string describe() const;
};

// The HRPB of A (forward SpMM) and of Aᵀ (its backward), with A's values.
struct HrpbAdjacency {
  Hrpb forward;
  Hrpb transpose;
  Device device() const { return forward.device(); }
  // A symmetric graph's single layout (both directions sharing it) stays shared.
  HrpbAdjacency to(Device device) const {
    Hrpb moved = forward.to(device);
    if (transpose.packed_blocks.shares_storage_with(forward.packed_blocks)) return {moved, moved};
    return {moved, transpose.to(device)};
  }
};

// A CSR of the matrix the HRPB holds (host tensors): indptr int64, indices
// int32, values float32 [nnz]; rows sorted by column. For tests and tools.
struct HrpbAsCsr {
  Tensor indptr;
  Tensor indices;
  Tensor values;
};
HrpbAsCsr hrpb_to_csr(const Hrpb& hrpb);

// Why `hrpb` is not a consistent HRPB, or an empty string: sizes and dtypes,
// monotone offsets, active columns in range, every block record's header
// against its length and patterns, the non-zero count, max_block_words, and
// a schedule that covers every panel and block once within range. What the
// SpMM kernels rely on to stay in bounds; for layouts read from files
// (graph_io/hrpb_cache.hpp). Any device (read through a host copy).
std::string hrpb_structure_problem(const Hrpb& hrpb);

}  // namespace sgnn
