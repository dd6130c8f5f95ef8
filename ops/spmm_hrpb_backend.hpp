// Backend entry points of ops/spmm_hrpb.hpp (see ops/backend.hpp): c = A·b
// for the A held by `hrpb`, b [num_cols, F], c preallocated [num_rows, F]
// (every element written). The _bf16 entries take bfloat16 b and c (the
// rounding contract of ops/spmm_hrpb.hpp); the others float32.
#pragma once

#include <cstdint>

#include "core/hrpb.hpp"
#include "ops/backend.hpp"
#include "ops/spmm_hrpb.hpp"

namespace sgnn::ops {

// B row elements (the width rounded up to 8) from which the BF16 kernel may
// stage rows by bulk copies: 144 bytes (with 128-byte rows the TF32
// kernel's bulk copies cost more than they saved, docs/kernels.md).
inline constexpr int64_t kHrpbBf16BulkMinimumColumns = 72;

void spmm_hrpb_forward(Cpu, const Hrpb& hrpb, const Tensor& b, Tensor& c);
void spmm_hrpb_forward(Cuda, const Hrpb& hrpb, const Tensor& b, Tensor& c);
// `staging`: how the CUDA kernel stages B's rows (ops/spmm_hrpb.hpp); the same bits either way.
void spmm_hrpb_bf16_forward(Cpu, const Hrpb& hrpb, const Tensor& b, Tensor& c,
                            HrpbRowStaging staging = HrpbRowStaging::BulkCopies);
void spmm_hrpb_bf16_forward(Cuda, const Hrpb& hrpb, const Tensor& b, Tensor& c,
                            HrpbRowStaging staging = HrpbRowStaging::BulkCopies);

int64_t spmm_hrpb_occupancy(Cuda, Device device, int64_t width);

// How many times the BF16 kernel's A fragments were built (ops/cuda/hrpb_bf16_fragments.cuh:
// once per HRPB and its copies), for tests.
int64_t hrpb_bf16_fragments_built();

}  // namespace sgnn::ops
