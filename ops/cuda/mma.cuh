// The tensor-core steps shared by the HRPB kernels (ops/cuda/spmm_hrpb.cu,
// ops/cuda/spmm_hrpb_bf16.cu, ops/cuda/sddmm_hrpb.cu): mma.sync m16n8k8 on
// TF32 and m16n8k16 on bfloat16, float accumulators, and the rounding of a
// float to TF32. Fragment layouts (PTX ISA, lane = 4g + t):
//   m16n8k8 TF32   a[0] = A(g, t), a[1] = A(g + 8, t), a[2] = A(g, t + 4),
//                  a[3] = A(g + 8, t + 4); b0 = B(t, g), b1 = B(t + 4, g)
//   m16n8k16 BF16  pairs (k, k + 1), the lower k in the low half:
//                  a[0] = A(g, 2t..), a[1] = A(g + 8, 2t..), a[2] = A(g, 2t + 8..),
//                  a[3] = A(g + 8, 2t + 8..); b0 = B(2t.., g), b1 = B(2t + 8.., g)
//   both           d[0], d[1] = D(g, 2t), D(g, 2t + 1); d[2], d[3] the same at row g + 8.
#pragma once

#include <cstdint>

namespace sgnn::ops {

// Round to nearest even: one F2FP instruction on sm_90, where cvt.rna
// (ties away) is emulated with a compare and an add; two of these per mma
// n-tile made that a measurable share of the SpMM kernel (docs/kernels.md).
__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t out;
  asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(x));
  return out;
}

// d += A·B for a 16×8 A and an 8×8 B in the fragments above.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += A·B for a 16×16 A and a 16×8 B of bfloat16 pairs in the fragments above.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace sgnn::ops
