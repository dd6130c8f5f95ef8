// The SpMM dispatcher's formats: which kernel ops::spmm(adjacency, b) runs
// for a graph and a feature width.
//
//   Csr   the CSR kernel, float32 or bfloat16 (always available; float
//         accumulation: exact to ~1e-6 in float32, one rounding in bfloat16)
//   Hrpb  the tensor-core HRPB kernel, TF32 for float32 and BF16 (m16n8k16)
//         for bfloat16 (adjacency.hrpb must be set; relative error ~1e-3 in
//         float32; A's weights rounded to bfloat16 in bfloat16)
//   Auto  CSR when adjacency.hrpb is not set. Else the faster of the two,
//         timed by ops::spmm on the first call of each width where timing
//         pays (ops/spmm_choice.hpp, recorded with the call's other choices
//         under spmm_choice_key(1, width)); in bfloat16 where both row
//         stagings exist (hrpb_row_staging_matters), HRPB is timed with
//         each. Where it does not pay (small graphs, deterministic runs
//         without stored choices), the rule (rule_spmm_format).
//
// Multi-head SpMM (per-edge-per-head values) always runs on CSR.
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "ops/spmm_hrpb.hpp"

namespace sgnn::ops {

// Calibrated on the H100 with bench_hrpb (docs/kernels.md, programs of
// commit 6029ac8): on power-law and citation graphs (α ≈ 0.06-0.09) our CSR
// kernel is 1.1-6× faster than HRPB; on the band and the 2D and 3D
// elasticity matrices (α = 0.53, 0.30, 0.37) HRPB is 1.04-2.5× faster than
// CSR at every width from 16 to 256. Narrower widths are not measured: CSR.
inline constexpr double kHrpbAutoMinimumAlpha = 0.25;
inline constexpr int64_t kHrpbAutoMinimumWidth = 16;

// The rule where nothing is timed, for Auto with an HRPB layout: HRPB when
// the brick-column density α (cuTeSpMM's TCU-synergy measure,
// HrpbStatistics::alpha) reaches kHrpbAutoMinimumAlpha and the width
// reaches kHrpbAutoMinimumWidth, else CSR. Calibrated on float32 kernels, it
// is not used for bfloat16: without a recorded choice bfloat16 takes CSR.
SpmmFormat rule_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype);

// The kernel ops::spmm(adjacency, b) uses for b of `width` columns and
// dtype `dtype`: Csr or Hrpb, never Auto: the recorded choice, else the rule
// (no timing here). Throws InvalidArgument when Hrpb is requested without an
// HRPB layout.
SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype = DType::Float32);

// The recorded format "hrpb-copies": the HRPB kernel with B's rows staged by
// 16-byte copies (HrpbRowStaging::Copies); "hrpb" stages them by bulk copies
// where they are wide enough. Timed where hrpb_row_staging_matters, with
// "hrpb" and "csr".
inline constexpr const char* kHrpbByCopies = "hrpb-copies";

// How the HRPB kernel stages B's rows for b of this width and dtype: Copies
// where the recorded format is kHrpbByCopies, else BulkCopies (the kernel
// falls back to copies where rows are too short for bulk copies).
HrpbRowStaging chosen_hrpb_row_staging(const Adjacency& adjacency, int64_t width, DType dtype = DType::Float32);

}  // namespace sgnn::ops
