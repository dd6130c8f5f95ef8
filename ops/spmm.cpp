#include "ops/spmm.hpp"

#include "core/autograd.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_hrpb.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "spmm";

// C = A·b with `values` in A's order; `transpose_values` are the same weights
// in Aᵀ's order when the caller has them (GCN), else the backward reads them
// through the edge map. Without values, `symmetric_scale` (null: weight 1) weighs the
// entries of A and Aᵀ alike (Adjacency::symmetric_scale). `launch`: the
// forward's CSR launch where the caller chose it (null: chosen here).
Tensor spmm_with_values(const Adjacency& adjacency, const Tensor& values, const Tensor& transpose_values,
                        const Tensor& b, const double* symmetric_scale = nullptr,
                        const CsrSpmmLaunch* launch = nullptr) {
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
  Tensor c = detail::run_spmm(adjacency.csr, values, heads, features, b, out_shape, symmetric_scale, false, launch);

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

// The GCN form's weights: adjacency.values with their transpose, else the symmetric scale.
struct GcnWeights {
  Tensor values;
  Tensor transpose_values;
  const double* symmetric_scale = nullptr;
};

GcnWeights gcn_weights(const Adjacency& adjacency) {
  if (adjacency.has_values()) {
    SGNN_CHECK(adjacency.transpose_values.defined() && adjacency.transpose_values.numel() == adjacency.nnz() &&
                   adjacency.values.dim() == 1,
               kOp, ": adjacency.values must be [nnz] with transpose_values beside them");
    return {adjacency.values.detach(), adjacency.transpose_values.detach()};
  }
  // The adjacency keeps the symmetric scale alive for the backward (captured by value).
  return {Tensor(), Tensor(), adjacency.scale_data()};
}

}  // namespace

Tensor spmm(const Adjacency& adjacency, const Tensor& b) {
  if (!b.defined() || b.dim() != 2 || !is_floating(b.dtype())) {
    const GcnWeights weights = gcn_weights(adjacency);
    return spmm_with_values(adjacency, weights.values, weights.transpose_values, b, weights.symmetric_scale);
  }
  check_adjacency(adjacency, kOp);
  check_dense_operand(b, adjacency, adjacency.num_cols(), kOp, "b");
  // The HRPB kernel reads its own layout: the CSR weights are checked where CSR may run.
  const GcnWeights weights = adjacency.spmm_format == SpmmFormat::Hrpb ? GcnWeights{} : gcn_weights(adjacency);
  const SpmmChoice chosen =
      spmm_choice(adjacency, {adjacency.csr, weights.values, 1, b.size(1), b, weights.symmetric_scale, Tensor(), false});
  if (chosen.format == SpmmFormat::Hrpb) return spmm_hrpb(*adjacency.hrpb, b, chosen.staging);
  return spmm_with_values(adjacency, weights.values, weights.transpose_values, b, weights.symmetric_scale, &chosen.csr);
}

}  // namespace sgnn::ops
