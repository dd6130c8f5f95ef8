// One decision for each SpMM call, made here; the backends launch what they
// are given (ops/backend.hpp).
//
// A call's shape (heads, per-head width, B's dtype, and whether 16-byte
// accesses are possible) gets everything that runs from one lookup of the
// graph's choices (ops/kernel_choices.hpp):
//   format  Csr or Hrpb and HRPB's B-row staging; only ops::spmm(adjacency,
//           b) has a format to choose (ops/spmm_format.hpp), every other
//           SpMM (edge values, heads, the backward on Aᵀ, g-SpMM) runs CSR
//   csr     the CSR launch (ops/spmm_tile.hpp): the tile, on B as it is or
//           on a zero-padded copy
// Each part is, first that applies: forced (force_spmm_tile; the format by
// adjacency.spmm_format), recorded (timed before on this graph, or
// imported), timed now on the call's own operands where timing pays
// (ops/kernel_choices.hpp), else the rule:
//   tile    timed on shapes with 16-byte accesses: every candidate_spmm_tiles
//           in order (each against the runner-up so far), then the two
//           fastest again in row order; rule: rule_spmm_tile
//   padded  timed on the others: the direct path (its one scalar tile)
//           against the padded path (the padded width's own tile choice),
//           each run once, then a warm launch of each; rule: direct
//   format  timed with Auto and an HRPB layout: CSR (its launch above), then
//           HRPB against it, then in bfloat16 where both stagings exist HRPB
//           with B's rows staged by copies; rule: ops/spmm_format.hpp
// What is timed is recorded under spmm_choice_key (ops/choice_keys.hpp);
// the value names the parts decided so far, "[csr|hrpb|hrpb-copies ]
// [<tile>|padded <tile>|direct]": "v4s32r1-light", "hrpb v4s16r2",
// "csr padded v4s16r1", "direct" (the direct path of a shape without
// 16-byte accesses has one tile). Every choice computes the same sums; HRPB
// within its precision (ops/spmm_hrpb.hpp).
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"
#include "ops/spmm_hrpb.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops {

struct SpmmChoice {
  SpmmFormat format = SpmmFormat::Csr;  // never Auto
  HrpbRowStaging staging = HrpbRowStaging::BulkCopies;
  CsrSpmmLaunch csr;  // on the CPU (one kernel) left as it is
};

// One CSR SpMM call: spmm_forward's operands (ops/spmm_backend.hpp).
struct CsrSpmmCall {
  const Csr& csr;
  Tensor values;  // undefined: weight 1 (or the symmetric scale)
  int64_t heads;
  int64_t features;
  const Tensor& b;
  const double* symmetric_scale = nullptr;
  Tensor value_map;
  bool average = false;
};

// ops::spmm(adjacency, b)'s choice: `call` is its CSR form (b [n, F]
// floating, on the adjacency's device, checked). Where the CSR launch or
// the format is timed now, the CSR candidates run into a scratch output.
// Throws InvalidArgument where the adjacency asks for HRPB without a layout.
SpmmChoice spmm_choice(const Adjacency& adjacency, const CsrSpmmCall& call);

// The format and staging ops::spmm(adjacency, b) runs for a 16-byte aligned
// b of this width and dtype, without timing: recorded, else the rule.
SpmmChoice spmm_format_choice(const Adjacency& adjacency, int64_t width, DType dtype);

// c = A·b by the CSR kernels: the call's launch decided here (timed into c
// where that pays), then the backend runs it. Every CSR SpMM goes through
// here (ops/sparse_runners.hpp); tests and benchmarks that write into their
// own c too. Arguments as spmm_forward's.
void csr_spmm_into(const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b, Tensor& c,
                   const double* symmetric_scale = nullptr, const Tensor& value_map = Tensor(), bool average = false);

// The backend's run of `launch` (decided before) for `call` into c.
void launch_csr_spmm(const CsrSpmmCall& call, Tensor& c, const CsrSpmmLaunch& launch);

// Whether a graph's choices (ops::kernel_choices) hold a timed SpMM format,
// and whether one of them is HRPB (then the graph needs its HRPB layout).
bool records_spmm_format(const KernelChoiceMap& choices);
bool records_hrpb_spmm(const KernelChoiceMap& choices);

}  // namespace sgnn::ops
