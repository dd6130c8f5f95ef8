#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/hrpb.hpp"

namespace sgnn {

namespace {

bool has(const Tensor& t, DType dtype, int64_t numel) {
  return t.defined() && t.dtype() == dtype && t.dim() == 1 && t.numel() == numel;
}

// Why the packed blocks, size_ptr and max_block_words do not fit together,
// or a non-zero lies in a padding column or past the last row (empty when
// all is well). Reads a record only within its own words.
std::string blocks_problem(const Hrpb& h, const std::vector<int32_t>& row_ptr, const std::vector<int32_t>& active,
                           const std::vector<int64_t>& size_ptr, const std::vector<int32_t>& words) {
  int64_t nnz = 0, largest = 0;
  int64_t panel = 0;
  for (int64_t b = 0; b < h.num_blocks; ++b) {
    while (row_ptr[static_cast<std::size_t>(panel) + 1] <= b) ++panel;
    const auto at = static_cast<std::size_t>(b);
    const int64_t length = size_ptr[at + 1] - size_ptr[at];
    if (length < hrpb::kColPtrWords + 1) return detail::concat("block ", b, " has ", length, " words");
    const int32_t* record = words.data() + size_ptr[at];
    if (record[0] != 0) return detail::concat("block ", b, ": colPtr starts at ", record[0]);
    for (int c = 0; c < hrpb::kBrickColumns; ++c) {
      // TM = brick height: at most one brick per brick column.
      // In 64 bits: a damaged record may hold any two int32 values.
      const int64_t step = int64_t{record[c + 1]} - int64_t{record[c]};
      if (step != 0 && step != 1) return detail::concat("block ", b, ": brick column ", c, " holds ", step, " bricks");
    }
    const int bricks = record[hrpb::kBrickColumns];
    if (length < hrpb::values_offset(bricks)) return detail::concat("block ", b, " is shorter than its header");
    int64_t block_nnz = 0;
    for (int c = 0; c < hrpb::kBrickColumns; ++c) {
      for (int32_t k = record[c]; k < record[c + 1]; ++k) {
        if (record[hrpb::rows_offset() + k] != 0) return detail::concat("block ", b, ": brick ", k, " is not in row 0");
        const uint64_t pattern = hrpb::brick_pattern(record + hrpb::patterns_offset(bricks) + 2 * k);
        if (pattern == 0) return detail::concat("block ", b, ": brick ", k, " is empty");
        for (uint64_t bits = pattern; bits != 0; bits &= bits - 1) {
          const int bit = std::countr_zero(bits);
          const int64_t row = panel * hrpb::kPanelRows + bit / hrpb::kBrickCols;
          const int32_t col =
              active[at * hrpb::kBlockCols + static_cast<std::size_t>(c * hrpb::kBrickCols + bit % hrpb::kBrickCols)];
          if (col < 0 || row >= h.num_rows) {
            return detail::concat("block ", b, " has a non-zero at row ", row,
                                  " in a padding column or past the last row");
          }
        }
        block_nnz += std::popcount(pattern);
      }
    }
    if (length != hrpb::block_words(bricks, block_nnz)) {
      return detail::concat("block ", b, " has ", length, " words, its header describes ",
                            hrpb::block_words(bricks, block_nnz));
    }
    nnz += block_nnz;
    largest = std::max(largest, length);
  }
  if (nnz != h.nnz) return detail::concat("the bricks hold ", nnz, " non-zeros, the HRPB says ", h.nnz);
  if (largest != h.max_block_words) {
    return detail::concat("max_block_words is ", h.max_block_words, ", the largest block has ", largest, " words");
  }
  return {};
}

std::string schedule_problem(const Hrpb& h, const std::vector<int32_t>& row_ptr) {
  const HrpbSchedule& s = h.schedule;
  const int64_t v_count = s.num_virtual_panels, s_count = s.num_split_panels;
  if (v_count < 0 || v_count > INT32_MAX || s_count < 0 || s_count > INT32_MAX || s.num_slots < 0 ||
      s.num_slots > INT32_MAX) {
    return "schedule counts out of range";
  }
  if (!has(s.virtual_panel, DType::Int32, v_count) || !has(s.virtual_block_ptr, DType::Int32, v_count + 1) ||
      !has(s.virtual_slot, DType::Int32, v_count) || !has(s.split_panel, DType::Int32, s_count) ||
      !has(s.split_slot_ptr, DType::Int32, s_count + 1)) {
    return "schedule tensors of the wrong type or length";
  }
  const std::vector<int32_t> panel = s.virtual_panel.to_vector<int32_t>();
  const std::vector<int32_t> block_ptr = s.virtual_block_ptr.to_vector<int32_t>();
  const std::vector<int32_t> slot = s.virtual_slot.to_vector<int32_t>();
  // Virtual panels in panel order, every panel at least once, their block
  // ranges consecutive and inside their panel: every C row is written once.
  if (block_ptr[0] != 0 || block_ptr[static_cast<std::size_t>(v_count)] != h.num_blocks) {
    return "the virtual panels do not cover the blocks";
  }
  int64_t expected_panel = 0;
  for (int64_t v = 0; v < v_count; ++v) {
    const auto at = static_cast<std::size_t>(v);
    const int32_t p = panel[at];
    if (p < 0 || p >= h.num_panels || (p != expected_panel && p != expected_panel - 1)) {
      return detail::concat("virtual panel ", v, " is of panel ", p, " (panels must come in order)");
    }
    if (p == expected_panel) ++expected_panel;
    const auto pp = static_cast<std::size_t>(p);
    if (block_ptr[at] > block_ptr[at + 1] || block_ptr[at] < row_ptr[pp] || block_ptr[at + 1] > row_ptr[pp + 1]) {
      return detail::concat("virtual panel ", v, " covers blocks outside its panel ", p);
    }
    if (slot[at] < -1 || slot[at] >= s.num_slots) return detail::concat("virtual panel ", v, " has slot ", slot[at]);
  }
  if (expected_panel != h.num_panels) return "the virtual panels do not cover every panel";
  const std::vector<int32_t> split = s.split_panel.to_vector<int32_t>();
  const std::vector<int32_t> slot_ptr = s.split_slot_ptr.to_vector<int32_t>();
  if (slot_ptr[0] != 0) return "split slots do not start at 0";
  for (int64_t i = 0; i < s_count; ++i) {
    const auto at = static_cast<std::size_t>(i);
    if (split[at] < 0 || split[at] >= h.num_panels || slot_ptr[at] > slot_ptr[at + 1] ||
        slot_ptr[at + 1] > s.num_slots) {
      return detail::concat("split panel ", i, " is out of range");
    }
  }
  return {};
}

// A host copy that keeps undefined tensors undefined (Hrpb::to needs them all).
Hrpb host_copy(const Hrpb& hrpb) {
  auto host = [](const Tensor& t) { return t.defined() ? t.to(Device::cpu()) : t; };
  Hrpb h = hrpb;
  for (Tensor* t : {&h.blocked_row_ptr, &h.active_cols, &h.size_ptr, &h.packed_blocks, &h.schedule.virtual_panel,
                    &h.schedule.virtual_block_ptr, &h.schedule.virtual_slot, &h.schedule.split_panel,
                    &h.schedule.split_slot_ptr}) {
    *t = host(*t);
  }
  return h;
}

}  // namespace

std::string hrpb_structure_problem(const Hrpb& hrpb) {
  const Hrpb h = host_copy(hrpb);
  // Rows, columns and blocks are int32 indices; bounds first, so that no
  // size arithmetic below can overflow.
  constexpr int64_t kIndexLimit = INT32_MAX;
  if (h.num_rows < 0 || h.num_rows > kIndexLimit || h.num_cols < 0 || h.num_cols > kIndexLimit || h.nnz < 0 ||
      h.num_blocks < 0 || h.num_blocks > kIndexLimit) {
    return detail::concat("sizes out of range: ", h.num_rows, " x ", h.num_cols, ", ", h.nnz, " non-zeros, ",
                          h.num_blocks, " blocks");
  }
  if (h.num_panels != (h.num_rows + hrpb::kPanelRows - 1) / hrpb::kPanelRows) {
    return detail::concat(h.num_panels, " row panels for ", h.num_rows, " rows");
  }
  if (h.num_blocks > 0 && (h.max_block_words <= 0 || h.max_block_words > hrpb::kMaxBlockWords)) {
    return detail::concat("max_block_words ", h.max_block_words, " is outside (0, ", hrpb::kMaxBlockWords, "]");
  }
  if (!has(h.blocked_row_ptr, DType::Int32, h.num_panels + 1) ||
      !has(h.active_cols, DType::Int32, h.num_blocks * hrpb::kBlockCols) ||
      !has(h.size_ptr, DType::Int64, h.num_blocks + 1) || !h.packed_blocks.defined() ||
      h.packed_blocks.dtype() != DType::Int32 || h.packed_blocks.dim() != 1) {
    return "buffers of the wrong type or length";
  }
  const std::vector<int32_t> row_ptr = h.blocked_row_ptr.to_vector<int32_t>();
  if (row_ptr.front() != 0 || row_ptr.back() != h.num_blocks) return "blocked_row_ptr does not span the blocks";
  for (std::size_t p = 0; p + 1 < row_ptr.size(); ++p) {
    if (row_ptr[p] > row_ptr[p + 1]) return detail::concat("blocked_row_ptr decreases at panel ", p);
  }
  const std::vector<int32_t> active = h.active_cols.to_vector<int32_t>();
  for (const int32_t col : active) {
    if (col < -1 || col >= h.num_cols) {
      return detail::concat("active column ", col, " is outside [-1, ", h.num_cols, ")");
    }
  }
  const std::vector<int64_t> size_ptr = h.size_ptr.to_vector<int64_t>();
  if (size_ptr.front() != 0 || size_ptr.back() != h.packed_blocks.numel()) {
    return "size_ptr does not span the packed blocks";
  }
  for (std::size_t b = 0; b + 1 < size_ptr.size(); ++b) {
    if (size_ptr[b] > size_ptr[b + 1]) return detail::concat("size_ptr decreases at block ", b);
  }
  if (std::string problem = blocks_problem(h, row_ptr, active, size_ptr, h.packed_blocks.to_vector<int32_t>());
      !problem.empty()) {
    return problem;
  }
  return schedule_problem(h, row_ptr);
}

}  // namespace sgnn
