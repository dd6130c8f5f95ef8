// Backend entry points of ops/spmm_hrpb.hpp (see ops/backend.hpp): c = A·b
// for the A held by `hrpb`, b [num_cols, F], c preallocated [num_rows, F]
// (every element written). The _bf16 entries take bfloat16 b and c (the
// rounding contract of ops/spmm_hrpb.hpp); the others float32.
#pragma once

#include "core/hrpb.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

void spmm_hrpb_forward(Cpu, const Hrpb& hrpb, const Tensor& b, Tensor& c);
void spmm_hrpb_forward(Cuda, const Hrpb& hrpb, const Tensor& b, Tensor& c);
void spmm_hrpb_bf16_forward(Cpu, const Hrpb& hrpb, const Tensor& b, Tensor& c);
void spmm_hrpb_bf16_forward(Cuda, const Hrpb& hrpb, const Tensor& b, Tensor& c);

int64_t spmm_hrpb_occupancy(Cuda, Device device, int64_t width);

// How many times the BF16 kernel's A fragments were built (ops/cuda/hrpb_bf16_fragments.cuh:
// once per HRPB and its copies), for tests.
int64_t hrpb_bf16_fragments_built();

}  // namespace sgnn::ops
