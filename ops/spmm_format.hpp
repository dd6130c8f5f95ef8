// The SpMM dispatcher: which kernel ops::spmm(adjacency, b) runs for a graph
// and a feature width.
//
//   Csr   the FP32 scalar CSR kernel (always available; exact to ~1e-6)
//   Hrpb  the TF32 tensor-core HRPB kernel (adjacency.hrpb must be set;
//         relative error ~1e-3)
//   Auto  CSR when adjacency.hrpb is not set. Else the faster of the two,
//         timed by ops::spmm on the first call of each width where timing
//         pays (ops/kernel_choices.hpp) and recorded in the graph's choices
//         under spmm_format_key(width). Where it does not pay (small graphs,
//         deterministic runs without stored choices), the rule: HRPB when the
//         brick-column density α (cuTeSpMM's TCU-synergy measure,
//         HrpbStatistics::alpha) reaches kHrpbAutoMinimumAlpha and the width
//         reaches kHrpbAutoMinimumWidth, else CSR.
//
// Multi-head SpMM (per-edge-per-head values) always runs on CSR.
#pragma once

#include <cstdint>
#include <string>

#include "core/adjacency.hpp"

namespace sgnn::ops {

// Calibrated on the H100 with bench_hrpb (bench/RESULTS.md, programs of
// commit 6029ac8): on power-law and citation graphs (α ≈ 0.06-0.09) our CSR
// kernel is 1.1-6× faster than HRPB; on the band and the 2D and 3D
// elasticity matrices (α = 0.53, 0.30, 0.37) HRPB is 1.04-2.5× faster than
// CSR at every width from 16 to 256. Narrower widths are not measured: CSR.
inline constexpr double kHrpbAutoMinimumAlpha = 0.25;
inline constexpr int64_t kHrpbAutoMinimumWidth = 16;

// The kernel ops::spmm(adjacency, b) uses for b of `width` columns: Csr or
// Hrpb, never Auto: the recorded choice, else the rule (no timing here).
// Throws InvalidArgument when Hrpb is requested without an HRPB layout.
SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width);

// The key of the format choice in the graph's kernel choices: "spmm-format:f<width>".
std::string spmm_format_key(int64_t width);

}  // namespace sgnn::ops
