// Backend entry points of ops/sddmm.hpp (see ops/backend.hpp). Outputs are
// preallocated by the caller; every tensor is contiguous and on one device.
// x and y are both float32 or both bfloat16; products and sums in float.
// sddmm_dot's out is float32 or bfloat16 (each dot rounded once: an SpMM's
// bfloat16 edge values get their gradient in their dtype); sddmm_add's is float32.
#pragma once

#include "core/csr.hpp"
#include "core/hrpb.hpp"
#include "ops/backend.hpp"
#include "ops/sddmm_path.hpp"

namespace sgnn::ops {

// out[e, h] = Σ_f x[row(e), h, f] · y[col(e), h, f]
//   x [num_rows, heads · features], y [num_cols, heads · features], out [nnz · heads]
// hrpb: optional, the HRPB layout of csr's matrix on its device (Adjacency::hrpb's
// forward), what an Hrpb launch runs on.
// launch: what CUDA runs (decided by ops/sddmm_choice.hpp: sddmm_dot_into
// decides and calls this); its kernel must exist for the graph, the width
// and the layout (sddmm_kernel_exists), else InvalidArgument. The CPU has
// one kernel and ignores both.
void sddmm_dot_forward(Cpu, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out, const Hrpb* hrpb = nullptr, const SddmmLaunch& launch = {});
void sddmm_dot_forward(Cuda, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out, const Hrpb* hrpb, const SddmmLaunch& launch);

// out[e, h] = x[row(e), h] + y[col(e), h]; x [num_rows, heads], y [num_cols, heads], out [nnz · heads]
void sddmm_add_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& x, const Tensor& y, Tensor& out);
void sddmm_add_forward(Cuda, const Csr& csr, int64_t heads, const Tensor& x, const Tensor& y, Tensor& out);

}  // namespace sgnn::ops
