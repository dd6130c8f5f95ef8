// Builds the BF16 HRPB kernel's A fragments (ops/cuda/hrpb_bf16_fragments.cuh):
// one warp per block record, read from global memory. The decode the kernel
// did per warp and block before: brick column c holds at most one brick (TM =
// brick height); lane 4g + t needs, in each brick, pattern bits `lane` (row g,
// column t) and `lane + 32` (row g + 8), whose values sit at the popcount of
// the pattern's bits below them.
#include "ops/cuda/hrpb_bf16_fragments.cuh"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "core/cuda/launch.cuh"
#include "core/error.hpp"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

std::atomic<int64_t> fragments_built{0};

__global__ void build_fragments_kernel(const int64_t* size_ptr, const int32_t* packed, int64_t num_blocks,
                                       uint4* fragments) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const uint32_t lane_mask = (1u << lane) - 1u;
  const int64_t warps = int64_t{gridDim.x} * (blockDim.x / 32);
  for (int64_t block = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; block < num_blocks; block += warps) {
    const int32_t* record = packed + size_ptr[block];
    const int bricks = record[hrpb::kBrickColumns];
    const int32_t* values = record + hrpb::values_offset(bricks);
    const int32_t* pattern_words = record + hrpb::patterns_offset(bricks);
    float upper[hrpb::kBrickColumns], lower[hrpb::kBrickColumns];
    int nnz_offset = 0;
#pragma unroll
    for (int brick_col = 0; brick_col < hrpb::kBrickColumns; ++brick_col) {
      upper[brick_col] = lower[brick_col] = 0.0f;
      if (record[brick_col + 1] == record[brick_col]) continue;
      const uint64_t pattern = hrpb::brick_pattern(pattern_words + 2 * record[brick_col]);
      const auto low = static_cast<uint32_t>(pattern);
      const auto high = static_cast<uint32_t>(pattern >> 32);
      // Only set bits are read: the loads stay inside the record.
      if ((low >> lane) & 1u) upper[brick_col] = __int_as_float(values[nnz_offset + __popc(low & lane_mask)]);
      if ((high >> lane) & 1u) {
        lower[brick_col] = __int_as_float(values[nnz_offset + __popc(low) + __popc(high & lane_mask)]);
      }
      nnz_offset += __popcll(pattern);
    }
    fragments[block * 32 + lane] = make_uint4(pack_bf16(upper[0], upper[1]), pack_bf16(lower[0], lower[1]),
                                              pack_bf16(upper[2], upper[3]), pack_bf16(lower[2], lower[3]));
  }
}

}  // namespace

Tensor hrpb_bf16_fragments(const Hrpb& hrpb) {
  SGNN_CHECK(hrpb.derived != nullptr, "hrpb_bf16_fragments: the Hrpb has no derived-data slot");
  SGNN_CHECK(hrpb.device().is_cuda(), "hrpb_bf16_fragments: the HRPB is on ", hrpb.device().str(),
             ", the fragments are built on a CUDA device");
  HrpbDerived& derived = *hrpb.derived;
  std::lock_guard<std::mutex> lock(derived.mutex);
  derived.refresh_for(hrpb.packed_blocks);
  if (derived.bf16_fragments.defined()) return derived.bf16_fragments;
  const Device device = hrpb.device();
  const cuda::DeviceGuard guard(device);
  Tensor fragments = Tensor::empty({std::max<int64_t>(hrpb.num_blocks, 1) * 128}, DType::Int32, device);
  if (hrpb.num_blocks > 0) {
    constexpr int kThreads = 256;
    const int64_t blocks = std::min<int64_t>((hrpb.num_blocks * 32 + kThreads - 1) / kThreads, int64_t{1} << 20);
    build_fragments_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, cuda::stream(device)>>>(
        hrpb.size_ptr.data<int64_t>(), hrpb.packed_blocks.data<int32_t>(), hrpb.num_blocks,
        reinterpret_cast<uint4*>(fragments.data<int32_t>()));
    SGNN_CUDA_CHECK_LAUNCH("build_fragments_kernel");
  }
  derived.bf16_fragments = fragments;
  ++fragments_built;
  return fragments;
}

int64_t hrpb_bf16_fragments_built() { return fragments_built.load(); }

}  // namespace sgnn::ops
