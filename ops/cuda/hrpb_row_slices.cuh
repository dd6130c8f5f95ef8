// Staging an HRPB block's 16 B rows when a staged row's 16-byte pieces are a
// power of two that divides the thread block (every full chunk of the TF32
// kernel; widths 32 and 64 of the BF16 kernel, whose rows are too short for
// bulk copies): each thread copies the same piece of rows k0, k0 + row_step,
// …, so a copy costs a shuffle and one address, not a division and a 64-bit
// index per piece. (With the division, the BF16 kernel's staging loop was a
// third of its instructions at width 64: ncu source counters, FEM 3D.)
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/hrpb.hpp"
#include "ops/cuda/async_copy.cuh"

namespace sgnn::ops::hrpb_staging {

// Row k (0..15) of the block: elements [chunk_begin, chunk_begin +
// staged_width) of B's row `column`, the lane_column of lane k (< 0: a
// padding row, zeros), with zeros past chunk_width, at sm_b + k · b_stride;
// by 16-byte cp.async (b and sm_b 16-byte aligned, width a multiple of the
// piece). T is float or uint16_t (bfloat16 bits). Returns false, having
// copied nothing, when the pieces per staged row are not a power of two
// dividing blockDim.x (or the row step does not divide 16). Every block of a
// thread block runs this, so the divisions by the piece count are shifts:
// as divisions they were about 80 of the BF16 kernel's ~440 instructions a
// block at width 64 (ncu source counters, FEM 2D linear); as shifts, the
// BF16 kernel runs 3.5-14% faster at widths 32-64 on the FEM and stencil
// matrices and the TF32 one 4-6% at 32 (docs/kernels.md).
template <typename T>
__device__ __forceinline__ bool stage_rows_by_slices(const T* b, int64_t width, int b_stride, int32_t lane_column,
                                                     int64_t chunk_begin, int chunk_width, int staged_width,
                                                     T* sm_b) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, uint16_t>, "float or bfloat16 bits");
  constexpr int kPieceElements = 16 / static_cast<int>(sizeof(T));
  const int threads = static_cast<int>(blockDim.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int pieces = staged_width / kPieceElements;
  if ((pieces & (pieces - 1)) != 0 || pieces == 0) return false;
  const int shift = __ffs(pieces) - 1;  // log2(pieces)
  const int row_step = threads >> shift;
  if ((row_step << shift) != threads || row_step > hrpb::kBlockCols || (row_step & (row_step - 1)) != 0) return false;
  const int j = kPieceElements * (thread & (pieces - 1));
  const int k0 = thread >> shift;
  const bool inside = j < chunk_width;
  const T* b_slice = b + chunk_begin + j;
  T* target = sm_b + k0 * b_stride + j;
  for (int k = k0; k < hrpb::kBlockCols; k += row_step, target += row_step * b_stride) {
    const int32_t column = __shfl_sync(0xffffffffu, lane_column, k);
    if (column >= 0 && inside) {
      async_copy::cp_async16(target, b_slice + int64_t{column} * width);
    } else {
      *reinterpret_cast<uint4*>(target) = make_uint4(0, 0, 0, 0);
    }
  }
  return true;
}

}  // namespace sgnn::ops::hrpb_staging
