#include "ops/spmm.hpp"

#include <algorithm>
#include <string>

#include "core/autograd.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"
#include "ops/spmm_format.hpp"
#include "ops/spmm_hrpb.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "spmm";

// C = A·b with `values` in A's order; `transpose_values` are the same weights
// in Aᵀ's order when the caller has them (GCN), else the backward reads them
// through the edge map. Without values, `symmetric_scale` (null: weight 1) weighs the
// entries of A and Aᵀ alike (Adjacency::symmetric_scale).
Tensor spmm_with_values(const Adjacency& adjacency, const Tensor& values, const Tensor& transpose_values,
                        const Tensor& b, const double* symmetric_scale = nullptr) {
  check_adjacency(adjacency, kOp);
  const int64_t heads = values.defined() && values.dim() == 2 ? values.size(1) : 1;
  if (values.defined()) check_edge_tensor(values, adjacency, kOp, "edge_values");
  check_dense_operand(b, adjacency, adjacency.num_cols(), kOp, "b");
  if (values.defined() && values.dim() == 2) {
    SGNN_CHECK(b.dim() == 3 && b.size(1) == heads, kOp, ": edge_values [nnz, ", heads, "] need b of shape [",
               adjacency.num_cols(), ", ", heads, ", F], got ", shape_str(b.shape()));
  } else {
    SGNN_CHECK(b.dim() == 2, kOp, ": b must be [", adjacency.num_cols(), ", F] (per-head b [n, H, F] needs ",
               "edge_values [nnz, H]), got ", shape_str(b.shape()));
  }
  const int64_t features = b.size(-1);
  Shape out_shape = b.shape();
  out_shape[0] = adjacency.num_rows();
  Tensor c = detail::run_spmm(adjacency.csr, values, heads, features, b, out_shape, symmetric_scale);

  if (autograd::needs_recording({b, values})) {
    // Weights without their transposed copy are read through the edge map in backward.
    check_transpose(adjacency, kOp, values.defined() && !transpose_values.defined());
    autograd::record(kOp, {b, values}, c,
                     [adjacency, heads, features, symmetric_scale, saved_values = values.detach(),
                      saved_transpose_values = transpose_values.detach(),
                      saved_b = b.detach()](const Tensor& grad_c, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0] && !saved_transpose_values.defined() && saved_values.defined()) {
                         grads[0] = detail::run_spmm_transposed(adjacency, saved_values, heads, features, grad_c,
                                                                saved_b.shape());
                       } else if (needs[0]) {
                         grads[0] = detail::run_spmm(adjacency.transpose, saved_transpose_values, heads, features,
                                                     grad_c, saved_b.shape(), symmetric_scale);
                       }
                       if (needs[1]) {
                         grads[1] = detail::run_sddmm_dot(adjacency, heads, features, grad_c, saved_b,
                                                          saved_values.shape(), saved_values.dtype());
                       }
                       return grads;
                     });
  }
  return c;
}

}  // namespace

Tensor spmm(const Adjacency& adjacency, const Tensor& edge_values, const Tensor& b) {
  return spmm_with_values(adjacency, edge_values, Tensor(), b);
}

namespace {

Tensor spmm_csr(const Adjacency& adjacency, const Tensor& b) {
  if (adjacency.has_values()) {
    SGNN_CHECK(adjacency.transpose_values.defined() && adjacency.transpose_values.numel() == adjacency.nnz() &&
                   adjacency.values.dim() == 1,
               kOp, ": adjacency.values must be [nnz] with transpose_values beside them");
    return spmm_with_values(adjacency, adjacency.values.detach(), adjacency.transpose_values.detach(), b);
  }
  // The adjacency keeps the symmetric scale alive for the backward (captured by value).
  return spmm_with_values(adjacency, Tensor(), Tensor(), b, adjacency.scale_data());
}

// Auto with an HRPB layout and no recorded choice for this width and dtype:
// times the HRPB (with its conversions for bfloat16) and CSR kernels on `b`
// (forward only: the backward runs the same kernel on the transpose's
// layout) and records the faster, where timing pays.
void time_formats_once(const Adjacency& adjacency, const Tensor& b) {
  if (adjacency.spmm_format != SpmmFormat::Auto || adjacency.hrpb == nullptr) return;
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(adjacency.csr);
  const std::string key = spmm_format_key(b.size(1), b.dtype());
  if (plan->choices->find(key) || !may_tune(adjacency.csr, *plan->choices, stream_capturing(b.device()))) return;
  const autograd::NoGradGuard no_grad;
  // CSR first (its first launch picks its tile): HRPB's first launch then
  // shows whether it can win, and a clear loser is not launched again.
  const double csr_ms = candidate_ms(b.device(), [&] { (void)spmm_csr(adjacency, b); }, key + " csr");
  const double hrpb_ms = candidate_ms(b.device(), [&] { (void)spmm_hrpb(*adjacency.hrpb, b); }, key + " hrpb", csr_ms);
  std::string fastest = hrpb_ms < csr_ms ? "hrpb" : "csr";
  // Where the BF16 kernel may stage B's rows either way, the other way is a third candidate.
  if (hrpb_row_staging_matters(b.dtype(), b.size(1))) {
    const double best_ms = std::min(csr_ms, hrpb_ms);
    const double copies_ms = candidate_ms(
        b.device(), [&] { (void)spmm_hrpb(*adjacency.hrpb, b, HrpbRowStaging::Copies); }, key + " " + kHrpbByCopies,
        best_ms);
    if (copies_ms < best_ms) fastest = kHrpbByCopies;
  }
  plan->choices->set(key, fastest);
}

}  // namespace

Tensor spmm(const Adjacency& adjacency, const Tensor& b) {
  if (b.defined() && b.dim() == 2 && is_floating(b.dtype())) {
    time_formats_once(adjacency, b);
    const SpmmKernelChoice chosen = chosen_spmm_kernel(adjacency, b.size(1), b.dtype());
    if (chosen.format == SpmmFormat::Hrpb) return spmm_hrpb(*adjacency.hrpb, b, chosen.staging);
  }
  return spmm_csr(adjacency, b);
}

}  // namespace sgnn::ops
