// Measured kernel choices. Where several kernels compute the same op (CSR
// SpMM tiles, CSR or HRPB SpMM, the SDDMM paths), the first call of an
// (op, heads, width) on a graph times every candidate for a few launches on
// the call's own operands and keeps the fastest in the graph's plan
// (ops/sparse_plan.hpp); every later call reuses it. Choices are exported
// and imported as text (graph_io stores them beside the adjacency cache),
// so a later run with the same cache makes the same choices without timing.
// When a call may time (CUDA, large enough graphs, not deterministic unless
// imported, not switched off): may_tune in ops/kernel_choice_table.hpp.
#pragma once

#include "core/csr.hpp"
#include "ops/kernel_choice_table.hpp"

namespace sgnn::ops {

// The choices recorded for `csr` (its plan's table), e.g. to store them.
KernelChoiceMap kernel_choices(const Csr& csr);
// Sets choices for `csr` before its first use (e.g. read from a cache file);
// calls then use them instead of timing. Choices stored by builds before
// one key held a call's whole SpMM or SDDMM choice ("spmm-format:",
// "spmm-tile:", "spmm-padded:", "sddmm-padded:") are translated to today's
// keys (ops/older_kernel_choices.hpp). Unknown keys or variants are ignored
// by the ops (a newer library may name others).
void import_kernel_choices(const Csr& csr, const KernelChoiceMap& choices);
// Makes `transpose` use the same table as `csr` (same pattern, e.g. a
// symmetrised graph): its choices are then timed once for both.
void share_kernel_choices(const Csr& csr, const Csr& transpose);

}  // namespace sgnn::ops
