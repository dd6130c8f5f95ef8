// The A operand of the BF16 HRPB kernel (ops/cuda/spmm_hrpb_bf16.cu) in
// mma.sync m16n8k16 fragment order, decoded from the block records once per
// HRPB instead of by every warp for every block and feature chunk.
//
//   fragments  [num_blocks · 32] uint4, on the HRPB's device (an int32 Tensor
//              of num_blocks · 128 words). Entry 32·b + lane is the a[0..3]
//              that lane 4g + t passes to the mma for block b: bfloat16 pairs,
//              the lower k in the low half,
//                a[0] = A(g, column t of brick 0), A(g, column t of brick 1)
//                a[1] = the same at row g + 8
//                a[2] = A(g, column t of brick 2), A(g, column t of brick 3)
//                a[3] = the same at row g + 8
//              (0 where the brick or the cell is empty); A's float32 values
//              rounded to nearest even, the rounding the CPU reference makes.
//
// hrpb_bf16_fragments(hrpb) builds them on the first call for an Hrpb on a
// CUDA device and keeps them in hrpb.derived (core/hrpb.hpp), which its copies
// share: later calls return the same tensor. Thread safe. 512 bytes a block.
// ops/spmm_hrpb_backend.hpp counts the builds (hrpb_bf16_fragments_built).
#pragma once

#include <cstdint>

#include "core/hrpb.hpp"

namespace sgnn::ops {

// Two floats as bfloat16 (round to nearest even) in one register, `low` in the low half.
__device__ __forceinline__ uint32_t pack_bf16(float low, float high) {
  uint32_t out;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(out) : "f"(high), "f"(low));
  return out;
}

Tensor hrpb_bf16_fragments(const Hrpb& hrpb);

}  // namespace sgnn::ops
