// One decision for each sddmm_dot call, made here; the backend launches
// what it is given (ops/backend.hpp).
//
// A call's shape (heads, per-head width, the operands' dtype, whether
// 16-byte loads are possible, and whether the graph's HRPB layout fits)
// gets its SddmmLaunch (ops/sddmm_path.hpp: a kernel, on x and y as they are
// or on zero-padded copies) from one lookup of the graph's choices
// (ops/kernel_choices.hpp). First that applies: forced (force_sddmm_path:
// always direct), recorded (timed before on this graph, or imported), timed
// now on the call's own operands where timing pays, else the rule:
//   kernel  timed on shapes with 16-byte loads: candidate_sddmm_kernels in
//           order (each against the fastest so far), then every kernel that
//           walks the plan's segments again in row order (warm: it has just
//           run); rule: rule_sddmm_kernel
//   padded  timed on the others: the direct path (its own kernels timed as
//           above) against the padded path (the padded width's own choice),
//           each run once, then a warm launch of each; rule: direct
// What is timed is recorded under sddmm_choice_key (ops/choice_keys.hpp),
// the value "[padded ]<kernel>": "dense-rows-rows", "padded segments-8".
// Every kernel computes the same function (Hrpb within TF32 in float32).
#pragma once

#include <cstdint>

#include "core/csr.hpp"
#include "core/hrpb.hpp"
#include "core/tensor.hpp"
#include "ops/kernel_choices.hpp"

namespace sgnn::ops {

// out[e, h] = x[row(e), h, :] · y[col(e), h, :] (sddmm_dot_forward's
// arguments, ops/sddmm_backend.hpp): the call's launch decided here (timed
// into out where that pays), then the backend runs it. ops::sddmm_dot and
// SpMM's value gradient go through here; tests and benchmarks too.
void sddmm_dot_into(const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y, Tensor& out,
                    const Hrpb* hrpb = nullptr);

// Whether a graph's choices (ops::kernel_choices) run an SDDMM on the HRPB layout.
bool records_hrpb_sddmm(const KernelChoiceMap& choices);

}  // namespace sgnn::ops
