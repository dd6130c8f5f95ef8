// Builds the HRPB SDDMM's row masks (ops/cuda/hrpb_row_masks.cuh): one thread
// per (panel, row) walks the panel's blocks in order, gathering the row's
// four pattern nibbles of each block into its mask and counting its entries.
#include "ops/cuda/hrpb_row_masks.cuh"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "core/cuda/launch.cuh"
#include "core/error.hpp"

namespace sgnn::ops {

namespace {

std::atomic<int64_t> masks_built{0};

__global__ void build_row_masks_kernel(const int32_t* blocked_row_ptr, const int64_t* size_ptr, const int32_t* packed,
                                       int64_t num_panels, uint2* row_masks) {
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  for (int64_t item = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; item < num_panels * hrpb::kPanelRows;
       item += threads) {
    const int64_t panel = item / hrpb::kPanelRows;
    const int row = static_cast<int>(item % hrpb::kPanelRows);
    unsigned before = 0;
    for (int64_t block = blocked_row_ptr[panel]; block < blocked_row_ptr[panel + 1]; ++block) {
      const int32_t* record = packed + size_ptr[block];
      const int32_t* pattern_words = record + hrpb::patterns_offset(record[hrpb::kBrickColumns]);
      unsigned mask = 0;
#pragma unroll
      for (int brick_col = 0; brick_col < hrpb::kBrickColumns; ++brick_col) {
        if (record[brick_col + 1] == record[brick_col]) continue;  // no brick in this column
        const uint64_t pattern = hrpb::brick_pattern(pattern_words + 2 * record[brick_col]);
        const auto nibble = static_cast<unsigned>(pattern >> (row * hrpb::kBrickCols)) & 0xfu;
        mask |= nibble << (brick_col * hrpb::kBrickCols);
      }
      row_masks[block * hrpb::kPanelRows + row] = make_uint2(before, mask);
      before += static_cast<unsigned>(__popc(mask));
    }
  }
}

}  // namespace

Tensor hrpb_row_masks(const Hrpb& hrpb) {
  SGNN_CHECK(hrpb.derived != nullptr, "hrpb_row_masks: the Hrpb has no derived-data slot");
  SGNN_CHECK(hrpb.device().is_cuda(), "hrpb_row_masks: the HRPB is on ", hrpb.device().str(),
             ", the row masks are built on a CUDA device");
  HrpbDerived& derived = *hrpb.derived;
  std::lock_guard<std::mutex> lock(derived.mutex);
  derived.refresh_for(hrpb.packed_blocks);
  if (derived.row_masks.defined()) return derived.row_masks;
  const Device device = hrpb.device();
  const cuda::DeviceGuard guard(device);
  Tensor masks = Tensor::empty({std::max<int64_t>(hrpb.num_blocks, 1) * 2 * hrpb::kPanelRows}, DType::Int32, device);
  if (hrpb.num_blocks > 0) {
    constexpr int kThreads = 256;
    const int64_t items = hrpb.num_panels * hrpb::kPanelRows;
    const int64_t blocks = std::min<int64_t>((items + kThreads - 1) / kThreads, int64_t{1} << 20);
    build_row_masks_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, cuda::stream(device)>>>(
        hrpb.blocked_row_ptr.data<int32_t>(), hrpb.size_ptr.data<int64_t>(), hrpb.packed_blocks.data<int32_t>(),
        hrpb.num_panels, reinterpret_cast<uint2*>(masks.data<int32_t>()));
    SGNN_CUDA_CHECK_LAUNCH("build_row_masks_kernel");
  }
  derived.row_masks = masks;
  ++masks_built;
  return masks;
}

int64_t hrpb_row_masks_built() { return masks_built.load(); }

}  // namespace sgnn::ops
