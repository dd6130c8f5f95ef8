#include "core/hrpb.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <sstream>

namespace sgnn {

double HrpbStatistics::nnz_per_brick() const {
  return num_bricks == 0 ? 0.0 : static_cast<double>(nnz) / static_cast<double>(num_bricks);
}

double HrpbStatistics::alpha() const {
  // A brick of TM = 16 rows whose 4 columns are all active columns of the
  // panel: the fraction of its 64 cells that hold a non-zero is the average
  // column density.
  return nnz_per_brick() / (hrpb::kBrickRows * hrpb::kBrickCols);
}

const char* HrpbStatistics::synergy() const {
  const double a = alpha();
  return a < 0.125 ? "low" : (a < 0.25 ? "medium" : "high");
}

std::string HrpbStatistics::describe() const {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << "HRPB: " << nnz << " non-zeros, " << num_panels << " row panels (" << empty_panels << " empty), "
      << active_columns << " active panel columns, " << num_blocks << " blocks, " << num_bricks
      << " active bricks\n"
      << "  non-zeros per active brick " << nnz_per_brick() << " of 64, brick-column density alpha "
      << alpha() << " (" << synergy() << " synergy), modelled OI_shmem 512*alpha = " << operational_intensity()
      << "\n"
      << "  memory " << hrpb_bytes << " bytes (" << (csr_bytes > 0 ? static_cast<double>(hrpb_bytes) /
                                                                        static_cast<double>(csr_bytes)
                                                                  : 0.0)
      << "x the int32 CSR with values)";
  return out.str();
}

namespace {
HrpbSchedule schedule_to(const HrpbSchedule& schedule, Device device) {
  HrpbSchedule out = schedule;
  out.virtual_panel = schedule.virtual_panel.to(device);
  out.virtual_block_ptr = schedule.virtual_block_ptr.to(device);
  out.virtual_slot = schedule.virtual_slot.to(device);
  out.split_panel = schedule.split_panel.to(device);
  out.split_slot_ptr = schedule.split_slot_ptr.to(device);
  return out;
}
}  // namespace

Hrpb Hrpb::to(Device device) const {
  Hrpb out = *this;
  out.blocked_row_ptr = blocked_row_ptr.to(device);
  out.active_cols = active_cols.to(device);
  out.size_ptr = size_ptr.to(device);
  out.packed_blocks = packed_blocks.to(device);
  out.schedule = schedule_to(schedule, device);
  if (out.packed_blocks.defined() && !out.packed_blocks.shares_storage_with(packed_blocks)) {
    out.derived = std::make_shared<HrpbDerived>();  // new tensors: what was derived from these is not theirs
  }
  return out;
}

std::string Hrpb::describe() const {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  out << statistics.describe() << "\n  largest block: " << max_block_words << " words\n  schedule: "
      << schedule.num_virtual_panels << " virtual panels, "
      << schedule.num_split_panels << " panels split (" << (deterministic ? "fixed-order merge" : "atomic merge")
      << "), " << schedule.concurrent_blocks << " concurrent thread blocks, modelled waves "
      << schedule.waves_unsplit << " unsplit -> " << schedule.waves_planned << " planned";
  return out.str();
}

HrpbAsCsr hrpb_to_csr(const Hrpb& hrpb) {
  const Hrpb host = hrpb.to(Device::cpu());
  const std::vector<int32_t> row_ptr = host.blocked_row_ptr.to_vector<int32_t>();
  const std::vector<int32_t> active = host.active_cols.to_vector<int32_t>();
  const std::vector<int64_t> size_ptr = host.size_ptr.to_vector<int64_t>();
  const std::vector<int32_t> words = host.packed_blocks.to_vector<int32_t>();

  struct Entry {
    int64_t row;
    int32_t col;
    float value;
  };
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(hrpb.nnz));
  for (int64_t panel = 0; panel < hrpb.num_panels; ++panel) {
    for (int32_t block = row_ptr[static_cast<std::size_t>(panel)]; block < row_ptr[static_cast<std::size_t>(panel) + 1];
         ++block) {
      const int32_t* record = words.data() + size_ptr[static_cast<std::size_t>(block)];
      const int bricks = record[hrpb::kBrickColumns];
      const int32_t* values = record + hrpb::values_offset(bricks);
      for (int brick_col = 0; brick_col < hrpb::kBrickColumns; ++brick_col) {
        for (int32_t k = record[brick_col]; k < record[brick_col + 1]; ++k) {
          const int32_t brick_row = record[hrpb::rows_offset() + k];
          const uint64_t pattern = hrpb::brick_pattern(record + hrpb::patterns_offset(bricks) + 2 * k);
          for (int bit = 0; bit < 64; ++bit) {
            if (((pattern >> bit) & 1u) == 0) continue;
            const int64_t row = panel * hrpb::kPanelRows + brick_row * hrpb::kBrickRows + bit / hrpb::kBrickCols;
            const int32_t col = active[static_cast<std::size_t>(block) * hrpb::kBlockCols +
                                       static_cast<std::size_t>(brick_col * hrpb::kBrickCols + bit % hrpb::kBrickCols)];
            SGNN_CHECK(col >= 0 && row < hrpb.num_rows, "hrpb_to_csr: block ", block, " has a non-zero at row ", row,
                       " in a padding column or past the last row: the HRPB is corrupt");
            entries.push_back({row, col, std::bit_cast<float>(*values++)});
          }
        }
      }
    }
  }
  SGNN_CHECK(static_cast<int64_t>(entries.size()) == hrpb.nnz, "hrpb_to_csr: decoded ", entries.size(),
             " non-zeros, the HRPB says ", hrpb.nnz);
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  std::vector<int64_t> indptr(static_cast<std::size_t>(hrpb.num_rows) + 1, 0);
  std::vector<int32_t> indices;
  std::vector<float> values;
  indices.reserve(entries.size());
  values.reserve(entries.size());
  for (const Entry& e : entries) {
    ++indptr[static_cast<std::size_t>(e.row) + 1];
    indices.push_back(e.col);
    values.push_back(e.value);
  }
  std::partial_sum(indptr.begin(), indptr.end(), indptr.begin());
  const int64_t n = static_cast<int64_t>(entries.size());
  return {Tensor::from_vector(indptr, {hrpb.num_rows + 1}), Tensor::from_vector(indices, {n}),
          Tensor::from_vector(values, {n})};
}

}  // namespace sgnn
