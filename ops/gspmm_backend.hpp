// Backend entry points of ops/gspmm.hpp and ops/gsddmm.hpp (see ops/backend.hpp):
// the generalized kernels for what the tuned SpMM and SDDMM do not cover.
// Outputs are preallocated by the caller; every tensor is contiguous and on
// the CSR's device; products, sums and comparisons in float.
#pragma once

#include "core/csr.hpp"
#include "ops/backend.hpp"
#include "ops/message_passing.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::ops {

// The operands of one g-SpMM on `csr`: u [num_cols, ...] (undefined for
// CopyE) and e [nnz, ...] (undefined for CopyU), float32 or bfloat16, laid
// out in the output's [heads, features] by their FeatureLayouts.
// edge_map: undefined, or int32 [nnz] on the device: entry k's edge data is
// e[edge_map[k]] (A's edge data read on Aᵀ through transpose_to_csr).
struct GspmmOperands {
  MessageKind message = MessageKind::CopyU;
  ReduceKind reduce = ReduceKind::Sum;
  int64_t heads = 1;
  int64_t features = 1;
  Tensor u;
  FeatureLayout u_layout;
  Tensor e;
  FeatureLayout e_layout;
  Tensor edge_map;
};

// out[v, h, f] = reduce over the entries k of row v of message(u[col(k)], e[k]),
// out [num_rows, heads · features] float32 or bfloat16. Rows without entries
// get 0. Max/Min also write argument (int32, out's shape): the winning entry
// k (a position in csr's order; the first among equal messages), -1 for rows
// without entries; undefined for Sum and Mean. The first NaN message wins
// (ops/message_math.hpp).
void gspmm_forward(Cpu, const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument);
void gspmm_forward(Cuda, const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument);

// Max/Min values only, for CopyU, or UMulE with e one weight per entry
// (e_layout.head_stride = feature_stride = 0) or per head (feature_stride 0,
// u [n, H, D] whole): out as gspmm_forward writes it, u and out of one
// dtype; no argument (the backward finds the winners with gspmm_forward).
// CUDA: out 16-byte aligned (a fresh tensor), else InvalidArgument.
void gspmm_extreme_values(Cpu, const Csr& csr, const GspmmOperands& operands, Tensor& out);
void gspmm_extreme_values(Cuda, const Csr& csr, const GspmmOperands& operands, Tensor& out);

// The ways the CUDA values-only kernel may run for this graph and call
// ("heavy 32 plan", "light 16 rows": 64- or 32-bit counting, lanes per
// item, the order of the work items), first the default where nothing may be
// timed. gspmm_extreme_values times them once per graph and shape and keeps
// the fastest under gspmm_extreme_choice_key (tests force each one).
std::vector<std::string> gspmm_extreme_launches(Cuda, const Csr& csr, const GspmmOperands& operands);

// Max/Min backward: for each output element (v, h, f) whose argument k ≥ 0,
// grad_u[col(k)] += g · ∂m/∂u and grad_e[k] += g · ∂m/∂e at the operands'
// layouts (a broadcast operand sums over the repeated extent). grad_u
// float32 [num_cols, u's features], grad_e float32 [nnz, e's features],
// zeroed by the caller; either may be undefined (not wanted). CUDA adds
// with atomics: sums where several outputs meet one element vary in order
// (deterministic mode takes gspmm_extreme_terms instead).
void gspmm_extreme_backward(Cpu, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                            const Tensor& grad_out, Tensor& grad_u, Tensor& grad_e);
void gspmm_extreme_backward(Cuda, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                            const Tensor& grad_out, Tensor& grad_u, Tensor& grad_e);

// Max/Min backward's terms, for ops::set_deterministic(true), where
// gspmm_extreme_backward's atomics would add in a varying order: for each
// output element i (argument's order), u_term[i] = g · ∂m/∂u to be added at
// flat position u_target[i] of grad_u, likewise for e; an element without a
// winner adds 0 one past the end (u_size = grad_u's element count, e_size).
// A Sum scatter in its sorted path then adds them in a fixed order
// (ops/gspmm.cpp), which needs sizes and argument.numel() below 2^31. Terms
// float32, targets int32, [argument.numel()] each, allocated by the caller;
// a pair whose operand needs no gradient is undefined.
struct ExtremeTermTensors {
  Tensor u_term, u_target, e_term, e_target;
  int64_t u_size = 0, e_size = 0;
};
void gspmm_extreme_terms(Cpu, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                         const Tensor& grad_out, ExtremeTermTensors& out);
void gspmm_extreme_terms(Cuda, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                         const Tensor& grad_out, ExtremeTermTensors& out);

// x[v, ...] *= 1 / (entries of row v) in place, for rows with entries (mean's backward).
// x [num_rows, ...] float32 or bfloat16 (rounded once).
void scale_by_inverse_row_length(Cpu, const Csr& csr, Tensor& x);
void scale_by_inverse_row_length(Cuda, const Csr& csr, Tensor& x);

// The operands of one g-SDDMM: lhs and rhs on their targets (U: [num_cols, ...],
// V: [num_rows, ...], E: [nnz, ...] in csr's order), float32 or bfloat16.
struct GsddmmOperands {
  BinaryKind op = BinaryKind::Add;
  int64_t heads = 1;
  int64_t features = 1;
  Tensor lhs;
  FeatureLayout lhs_layout;
  Target lhs_target = Target::U;
  Tensor rhs;
  FeatureLayout rhs_layout;
  Target rhs_target = Target::V;
};

// out[k, h, f] = op(lhs at k's target, rhs at k's target) for every entry k,
// out [nnz, heads · features]; Dot sums over f: out [nnz, heads]. float32 or
// bfloat16 out (rounded once).
void gsddmm_forward(Cpu, const Csr& csr, const GsddmmOperands& operands, Tensor& out);
void gsddmm_forward(Cuda, const Csr& csr, const GsddmmOperands& operands, Tensor& out);

}  // namespace sgnn::ops
