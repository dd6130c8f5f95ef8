// CPU reference of the HRPB SpMM: walks the format exactly as the kernel
// does (virtual panels -> blocks -> brick columns -> bricks -> pattern bits,
// values row-major within a brick), so its tests check the format too. Split
// panels are summed from their slots in slot order (deterministic). The
// bfloat16 version rounds where the BF16 kernel does: A's values to
// bfloat16, sums in float32, C once.
#include <bit>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

// Adds the blocks [begin, end) of one panel into tile [16, width] (zeroed by
// the caller), with A's values rounded to T as the kernel of T does.
template <typename T>
void accumulate_blocks(const Hrpb& a, int32_t begin, int32_t end, const T* b, int64_t width, float* tile) {
  const int32_t* active = a.active_cols.data<int32_t>();
  const int64_t* size_ptr = a.size_ptr.data<int64_t>();
  const int32_t* packed = a.packed_blocks.data<int32_t>();
  for (int32_t block = begin; block < end; ++block) {
    const int32_t* record = packed + size_ptr[block];
    const int bricks = record[hrpb::kBrickColumns];
    const int32_t* values = record + hrpb::values_offset(bricks);
    for (int brick_col = 0; brick_col < hrpb::kBrickColumns; ++brick_col) {
      for (int32_t k = record[brick_col]; k < record[brick_col + 1]; ++k) {
        const int32_t brick_row = record[hrpb::rows_offset() + k];
        const uint64_t pattern = hrpb::brick_pattern(record + hrpb::patterns_offset(bricks) + 2 * k);
        for (uint64_t bits = pattern; bits != 0; bits &= bits - 1) {
          const int bit = std::countr_zero(bits);
          const int64_t row = brick_row * hrpb::kBrickRows + bit / hrpb::kBrickCols;
          const int64_t col = active[int64_t{block} * hrpb::kBlockCols + brick_col * hrpb::kBrickCols +
                                     bit % hrpb::kBrickCols];
          const float value = round_to<T>(std::bit_cast<float>(*values++));
          const T* b_row = b + col * width;
          float* out = tile + row * width;
          for (int64_t j = 0; j < width; ++j) out[j] += value * load_float(b_row[j]);
        }
      }
    }
  }
}

template <typename T>
void store_tile(const float* tile, int64_t panel, int64_t num_rows, int64_t width, T* c) {
  const int64_t first = panel * hrpb::kPanelRows;
  const int64_t count = std::min<int64_t>(hrpb::kPanelRows, num_rows - first) * width;
  for (int64_t i = 0; i < count; ++i) c[first * width + i] = store_as<T>(tile[i]);
}

template <typename T>
void forward(const Hrpb& a, const Tensor& b, Tensor& c) {
  const int64_t width = b.size(1);
  const int64_t tile_size = hrpb::kPanelRows * width;
  const HrpbSchedule& s = a.schedule;
  const int32_t* virtual_panel = s.virtual_panel.data<int32_t>();
  const int32_t* block_ptr = s.virtual_block_ptr.data<int32_t>();
  const int32_t* slot = s.virtual_slot.data<int32_t>();
  std::vector<float> partials(static_cast<std::size_t>(s.num_slots * tile_size));
  const T* b_data = b.data<T>();
  T* c_data = c.data<T>();

#pragma omp parallel
  {
    std::vector<float> tile(static_cast<std::size_t>(tile_size));
#pragma omp for schedule(dynamic, 16)
    for (int64_t v = 0; v < s.num_virtual_panels; ++v) {
      float* out = slot[v] >= 0 ? partials.data() + int64_t{slot[v]} * tile_size : tile.data();
      std::fill(out, out + tile_size, 0.0f);
      accumulate_blocks(a, block_ptr[v], block_ptr[v + 1], b_data, width, out);
      if (slot[v] < 0) store_tile(out, virtual_panel[v], a.num_rows, width, c_data);
    }
  }

  const int32_t* split_panel = s.split_panel.data<int32_t>();
  const int32_t* slot_ptr = s.split_slot_ptr.data<int32_t>();
#pragma omp parallel
  {
    std::vector<float> tile(static_cast<std::size_t>(tile_size));
#pragma omp for
    for (int64_t k = 0; k < s.num_split_panels; ++k) {
      std::fill(tile.begin(), tile.end(), 0.0f);
      for (int32_t part = slot_ptr[k]; part < slot_ptr[k + 1]; ++part) {
        const float* partial = partials.data() + int64_t{part} * tile_size;
        for (int64_t i = 0; i < tile_size; ++i) tile[static_cast<std::size_t>(i)] += partial[i];
      }
      store_tile(tile.data(), split_panel[k], a.num_rows, width, c_data);
    }
  }
}

}  // namespace

void spmm_hrpb_forward(Cpu, const Hrpb& a, const Tensor& b, Tensor& c) { forward<float>(a, b, c); }

void spmm_hrpb_bf16_forward(Cpu, const Hrpb& a, const Tensor& b, Tensor& c, HrpbRowStaging) {
  forward<bfloat16>(a, b, c);  // one way to read B's rows here
}

}  // namespace sgnn::ops
