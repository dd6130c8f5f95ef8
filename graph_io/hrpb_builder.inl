// The steps of build_hrpb, written once for Thrust's host and device
// policies. Included by graph_io/hrpb_builder.cpp (OpenMP policy) and
// graph_io/cuda/hrpb_builder.cu (CUDA policy); not a public header.
//
// Every non-zero gets the key (panel, column, row within panel); after one
// sort the non-zeros of a panel's active column are adjacent, in row order,
// and the columns of a panel are in increasing order, so a scan over column
// heads numbers the active columns, and the non-zeros of a brick (4 active
// columns of a panel) are contiguous, so a reduce-by-key ORs its pattern.
#pragma once

#include <thrust/binary_search.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <bit>
#include <cstdint>

#include "core/csr.hpp"
#include "core/hrpb.hpp"

namespace sgnn::graph_io::detail {

// Key layout: panel (27 bits) << 35 | column (31 bits) << 4 | row in panel (4 bits).
inline constexpr int kColumnShift = 4;
inline constexpr int kPanelShift = 35;

SGNN_HRPB_HD int popcount64(uint64_t x) {
#ifdef __CUDA_ARCH__
  return __popcll(x);
#else
  return std::popcount(x);
#endif
}

SGNN_HRPB_HD int32_t float_bits(float value) {
#ifdef __CUDA_ARCH__
  return __float_as_int(value);
#else
  return std::bit_cast<int32_t>(value);
#endif
}

struct MakeKey {
  const int64_t* row_plus_one;  // upper_bound of the edge id in indptr
  const int32_t* indices;
  int64_t* keys;
  SGNN_HRPB_HD void operator()(int64_t e) const {
    const int64_t row = row_plus_one[e] - 1;
    keys[e] = ((row / hrpb::kPanelRows) << kPanelShift) | (int64_t{indices[e]} << kColumnShift) |
              (row % hrpb::kPanelRows);
  }
};

struct ColumnHead {
  const int64_t* keys;
  SGNN_HRPB_HD int64_t operator()(int64_t e) const {
    return (e == 0 || (keys[e] >> kColumnShift) != (keys[e - 1] >> kColumnShift)) ? 1 : 0;
  }
};

// active_number: inclusive scan of ColumnHead, so the active column of e is active_number[e] − 1.
struct ScatterActiveColumn {
  const int64_t* keys;
  const int64_t* active_number;
  int64_t* active_panel;
  int32_t* active_column;
  SGNN_HRPB_HD void operator()(int64_t e) const {
    if (e > 0 && active_number[e] == active_number[e - 1]) return;
    const int64_t g = active_number[e] - 1;
    active_panel[g] = keys[e] >> kPanelShift;
    active_column[g] = static_cast<int32_t>((keys[e] >> kColumnShift) & 0x7fffffff);
  }
};

// Blocks of panel p (0 for the trailing entry that the exclusive scan turns into the total).
struct PanelBlocks {
  const int64_t* panel_active_begin;  // [P + 1]
  int64_t num_panels;
  SGNN_HRPB_HD int32_t operator()(int64_t p) const {
    if (p == num_panels) return 0;
    const int64_t columns = panel_active_begin[p + 1] - panel_active_begin[p];
    return static_cast<int32_t>((columns + hrpb::kBlockCols - 1) / hrpb::kBlockCols);
  }
};

// Where active column g (global number) of panel p sits.
struct ActivePlace {
  int64_t local;  // within the panel
  int64_t block;  // global block id
};
SGNN_HRPB_HD ActivePlace place_of(int64_t g, int64_t panel, const int64_t* panel_active_begin,
                                   const int32_t* blocked_row_ptr) {
  const int64_t local = g - panel_active_begin[panel];
  return {local, blocked_row_ptr[panel] + local / hrpb::kBlockCols};
}

struct BlockBricks {
  const int32_t* block_panel;  // upper_bound of the block id in blocked_row_ptr
  const int32_t* blocked_row_ptr;
  const int64_t* panel_active_begin;
  int64_t num_blocks;
  SGNN_HRPB_HD int32_t operator()(int64_t b) const {
    if (b == num_blocks) return 0;
    const int64_t panel = block_panel[b] - 1;
    const int64_t columns = panel_active_begin[panel + 1] - panel_active_begin[panel];
    const int64_t first = (b - blocked_row_ptr[panel]) * hrpb::kBlockCols;
    const int64_t in_block = columns - first < hrpb::kBlockCols ? columns - first : hrpb::kBlockCols;
    return static_cast<int32_t>((in_block + hrpb::kBrickCols - 1) / hrpb::kBrickCols);
  }
};

struct FillActiveCols {
  const int64_t* active_panel;
  const int32_t* active_column;
  const int64_t* panel_active_begin;
  const int32_t* blocked_row_ptr;
  int32_t* active_cols;
  SGNN_HRPB_HD void operator()(int64_t g) const {
    const ActivePlace place = place_of(g, active_panel[g], panel_active_begin, blocked_row_ptr);
    active_cols[place.block * hrpb::kBlockCols + place.local % hrpb::kBlockCols] = active_column[g];
  }
};

// Brick id and pattern bit of each sorted non-zero.
struct NonZeroPlace {
  const int64_t* keys;
  const int64_t* active_number;
  const int64_t* panel_active_begin;
  const int32_t* blocked_row_ptr;
  const int32_t* block_brick_ptr;
  SGNN_HRPB_HD void locate(int64_t e, int64_t& block, int64_t& brick, int& bit) const {
    const int64_t panel = keys[e] >> kPanelShift;
    const ActivePlace place = place_of(active_number[e] - 1, panel, panel_active_begin, blocked_row_ptr);
    const int64_t in_block = place.local % hrpb::kBlockCols;
    block = place.block;
    brick = block_brick_ptr[block] + in_block / hrpb::kBrickCols;
    bit = static_cast<int>((keys[e] & (hrpb::kPanelRows - 1)) * hrpb::kBrickCols + in_block % hrpb::kBrickCols);
  }
};

struct BrickAndBit {
  NonZeroPlace place;
  int64_t* brick_of;
  int64_t* bit_of;
  SGNN_HRPB_HD void operator()(int64_t e) const {
    int64_t block = 0, brick = 0;
    int bit = 0;
    place.locate(e, block, brick, bit);
    brick_of[e] = brick;
    bit_of[e] = static_cast<int64_t>(uint64_t{1} << bit);
  }
};

struct BitOr {
  SGNN_HRPB_HD int64_t operator()(int64_t a, int64_t b) const { return a | b; }
};

struct BrickCount {
  const int64_t* patterns;
  int64_t num_bricks;
  SGNN_HRPB_HD int64_t operator()(int64_t k) const {
    return k == num_bricks ? 0 : popcount64(static_cast<uint64_t>(patterns[k]));
  }
};

struct BlockWords {
  const int32_t* block_brick_ptr;
  const int64_t* brick_value_ptr;
  int64_t num_blocks;
  SGNN_HRPB_HD int64_t operator()(int64_t b) const {
    if (b == num_blocks) return 0;
    const int32_t first = block_brick_ptr[b], last = block_brick_ptr[b + 1];
    return hrpb::block_words(last - first, brick_value_ptr[last] - brick_value_ptr[first]);
  }
};

struct WriteBlockHeader {
  const int32_t* block_brick_ptr;
  const int64_t* size_ptr;
  const int64_t* patterns;
  int32_t* packed;
  SGNN_HRPB_HD void operator()(int64_t b) const {
    const int32_t first = block_brick_ptr[b];
    const int bricks = block_brick_ptr[b + 1] - first;
    int32_t* record = packed + size_ptr[b];
    // TM = brick height: brick column c holds at most one brick, the c-th
    // (active columns fill the block from the left), in brick row 0.
    for (int c = 0; c <= hrpb::kBrickColumns; ++c) record[c] = c < bricks ? c : bricks;
    for (int k = 0; k < bricks; ++k) {
      record[hrpb::rows_offset() + k] = 0;
      const uint64_t pattern = static_cast<uint64_t>(patterns[first + k]);
      record[hrpb::patterns_offset(bricks) + 2 * k] = static_cast<int32_t>(static_cast<uint32_t>(pattern));
      record[hrpb::patterns_offset(bricks) + 2 * k + 1] = static_cast<int32_t>(static_cast<uint32_t>(pattern >> 32));
    }
  }
};

struct WriteValue {
  NonZeroPlace place;
  const int64_t* order;   // CSR edge id of each sorted non-zero
  const float* values;    // nullptr: weight 1
  const int64_t* patterns;
  const int64_t* brick_value_ptr;
  const int64_t* size_ptr;
  int32_t* packed;
  SGNN_HRPB_HD void operator()(int64_t e) const {
    int64_t block = 0, brick = 0;
    int bit = 0;
    place.locate(e, block, brick, bit);
    const int32_t first = place.block_brick_ptr[block];
    const int bricks = place.block_brick_ptr[block + 1] - first;
    const uint64_t below = (uint64_t{1} << bit) - 1;
    const int64_t rank = popcount64(static_cast<uint64_t>(patterns[brick]) & below);
    const int64_t offset = size_ptr[block] + hrpb::values_offset(bricks) +
                           (brick_value_ptr[brick] - brick_value_ptr[first]) + rank;
    packed[offset] = float_bits(values != nullptr ? values[order[e]] : 1.0f);
  }
};

struct ToInt64 {
  SGNN_HRPB_HD int64_t operator()(int32_t x) const { return x; }
};

// The buffers of an HRPB (no schedule, no statistics), on the CSR's device.
struct HrpbBuffers {
  Tensor blocked_row_ptr, active_cols, size_ptr, packed_blocks;
  int64_t num_panels = 0, num_blocks = 0, num_bricks = 0, active_columns = 0;
  int64_t max_block_words = 0;
};

inline int64_t element_at(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::Int32) return t.narrow_rows(i, i + 1).to_vector<int32_t>().at(0);
  return t.narrow_rows(i, i + 1).to_vector<int64_t>().at(0);
}

template <class Policy>
HrpbBuffers build_hrpb_buffers(const Policy& policy, const Csr& csr, const Tensor& values) {
  const Device device = csr.device();
  const int64_t nnz = csr.nnz;
  const int64_t num_panels = (csr.num_rows + hrpb::kPanelRows - 1) / hrpb::kPanelRows;
  const auto longs = [&](int64_t n) { return Tensor::empty({n}, DType::Int64, device); };
  const auto ints = [&](int64_t n) { return Tensor::empty({n}, DType::Int32, device); };
  const auto count = [](int64_t n) { return thrust::counting_iterator<int64_t>(n); };

  Tensor indptr = csr.indptr;
  if (indptr.dtype() == DType::Int32) {
    indptr = longs(csr.num_rows + 1);
    thrust::transform(policy, csr.indptr.data<int32_t>(), csr.indptr.data<int32_t>() + csr.num_rows + 1,
                      indptr.data<int64_t>(), ToInt64{});
  }

  // 1. Sort the non-zeros by (panel, column, row).
  Tensor keys = longs(nnz), order = longs(nnz);
  int64_t* key = keys.data<int64_t>();
  thrust::upper_bound(policy, indptr.data<int64_t>(), indptr.data<int64_t>() + csr.num_rows + 1, count(0),
                      count(nnz), key);
  thrust::for_each(policy, count(0), count(nnz), MakeKey{key, csr.indices.data<int32_t>(), key});
  thrust::sequence(policy, order.data<int64_t>(), order.data<int64_t>() + nnz);
  thrust::sort_by_key(policy, key, key + nnz, order.data<int64_t>());

  // 2. Number the active columns (distinct (panel, column) pairs).
  Tensor active_number = longs(nnz);
  int64_t* number = active_number.data<int64_t>();
  thrust::transform(policy, count(0), count(nnz), number, ColumnHead{key});
  thrust::inclusive_scan(policy, number, number + nnz, number);
  const int64_t active = nnz == 0 ? 0 : element_at(active_number, nnz - 1);
  Tensor active_panel = longs(active), active_column = ints(active);
  thrust::for_each(policy, count(0), count(nnz),
                   ScatterActiveColumn{key, number, active_panel.data<int64_t>(), active_column.data<int32_t>()});

  // 3. Blocks per panel and blocked_row_ptr.
  Tensor panel_active_begin = longs(num_panels + 1);
  const int64_t* panel_begin = panel_active_begin.data<int64_t>();
  thrust::lower_bound(policy, active_panel.data<int64_t>(), active_panel.data<int64_t>() + active, count(0),
                      count(num_panels + 1), panel_active_begin.data<int64_t>());
  Tensor blocked_row_ptr = ints(num_panels + 1);
  int32_t* row_ptr = blocked_row_ptr.data<int32_t>();
  thrust::transform(policy, count(0), count(num_panels + 1), row_ptr, PanelBlocks{panel_begin, num_panels});
  thrust::exclusive_scan(policy, row_ptr, row_ptr + num_panels + 1, row_ptr);
  const int64_t num_blocks = element_at(blocked_row_ptr, num_panels);

  // 4. Bricks per block (one per 4 active columns) and their offsets.
  Tensor block_panel = ints(num_blocks);
  thrust::upper_bound(policy, row_ptr, row_ptr + num_panels + 1, count(0), count(num_blocks),
                      block_panel.data<int32_t>());
  Tensor block_brick_ptr = ints(num_blocks + 1);
  int32_t* brick_ptr = block_brick_ptr.data<int32_t>();
  thrust::transform(policy, count(0), count(num_blocks + 1), brick_ptr,
                    BlockBricks{block_panel.data<int32_t>(), row_ptr, panel_begin, num_blocks});
  thrust::exclusive_scan(policy, brick_ptr, brick_ptr + num_blocks + 1, brick_ptr);
  const int64_t num_bricks = element_at(block_brick_ptr, num_blocks);

  // 5. activeCols, -1 past each panel's last active column.
  Tensor active_cols = ints(num_blocks * hrpb::kBlockCols);
  thrust::fill(policy, active_cols.data<int32_t>(), active_cols.data<int32_t>() + active_cols.numel(), -1);
  thrust::for_each(policy, count(0), count(active),
                   FillActiveCols{active_panel.data<int64_t>(), active_column.data<int32_t>(), panel_begin, row_ptr,
                                  active_cols.data<int32_t>()});

  // 6. Brick patterns: OR of the bits of each brick's (contiguous) non-zeros.
  const NonZeroPlace place{key, number, panel_begin, row_ptr, brick_ptr};
  Tensor brick_of = longs(nnz), bit_of = longs(nnz), patterns = longs(num_bricks);
  thrust::for_each(policy, count(0), count(nnz), BrickAndBit{place, brick_of.data<int64_t>(), bit_of.data<int64_t>()});
  thrust::reduce_by_key(policy, brick_of.data<int64_t>(), brick_of.data<int64_t>() + nnz, bit_of.data<int64_t>(),
                        thrust::make_discard_iterator(), patterns.data<int64_t>(), thrust::equal_to<int64_t>(),
                        BitOr{});

  // 7. Value offsets of the bricks, then the word offset of every block.
  Tensor brick_value_ptr = longs(num_bricks + 1);
  int64_t* value_ptr = brick_value_ptr.data<int64_t>();
  thrust::transform(policy, count(0), count(num_bricks + 1), value_ptr,
                    BrickCount{patterns.data<int64_t>(), num_bricks});
  thrust::exclusive_scan(policy, value_ptr, value_ptr + num_bricks + 1, value_ptr);
  Tensor size_ptr = longs(num_blocks + 1);
  int64_t* sizes = size_ptr.data<int64_t>();
  thrust::transform(policy, count(0), count(num_blocks + 1), sizes, BlockWords{brick_ptr, value_ptr, num_blocks});
  const int64_t max_block_words =
      thrust::reduce(policy, sizes, sizes + num_blocks, int64_t{0}, thrust::maximum<int64_t>());
  thrust::exclusive_scan(policy, sizes, sizes + num_blocks + 1, sizes);
  const int64_t words = element_at(size_ptr, num_blocks);

  // 8. Pack: headers (colPtr, rows, patterns) and values; pads stay 0.
  Tensor packed = Tensor::zeros({words}, DType::Int32, device);
  thrust::for_each(policy, count(0), count(num_blocks),
                   WriteBlockHeader{brick_ptr, sizes, patterns.data<int64_t>(), packed.data<int32_t>()});
  thrust::for_each(policy, count(0), count(nnz),
                   WriteValue{place, order.data<int64_t>(), values.defined() ? values.data<float>() : nullptr,
                              patterns.data<int64_t>(), value_ptr, sizes, packed.data<int32_t>()});

  return {blocked_row_ptr, active_cols, size_ptr, packed, num_panels, num_blocks, num_bricks, active, max_block_words};
}

}  // namespace sgnn::graph_io::detail
