#include "ops/gatv2_attention.hpp"

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/dropout.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/spmm.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "gatv2_scores";

void check_gatv2(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                 float negative_slope, const char* op) {
  check_adjacency(adjacency, op);
  check_defined(x_target, op, "x_target");
  check_dense_operand(x_target, adjacency, adjacency.num_rows(), op, "x_target");
  check_dense_operand(x_source, adjacency, adjacency.num_cols(), op, "x_source");
  SGNN_CHECK(x_target.dim() == 3 && x_source.dim() == 3 && x_target.size(1) == x_source.size(1) &&
                 x_target.size(2) == x_source.size(2),
             op, ": x_target and x_source must be [n_rows, H, F] and [n_cols, H, F] with one H and F, got ",
             shape_str(x_target.shape()), " and ", shape_str(x_source.shape()));
  SGNN_CHECK(x_target.dtype() == x_source.dtype(), op, ": x_target and x_source must have one dtype, got ",
             dtype_name(x_target.dtype()), " and ", dtype_name(x_source.dtype()));
  check_defined(a, op, "a");
  check_dtype(a, DType::Float32, op, "a");
  SGNN_CHECK(a.device() == adjacency.device(), op, ": argument 'a' is on ", a.device().str(),
             " but the adjacency is on ", adjacency.device().str());
  SGNN_CHECK(a.shape() == Shape({x_target.size(1), x_target.size(2)}), op, ": a must be [H, F] = [",
             x_target.size(1), ", ", x_target.size(2), "], got ", shape_str(a.shape()));
  SGNN_CHECK(negative_slope >= 0.0f, op, ": negative_slope must be non-negative, got ", negative_slope);
}

}  // namespace

Tensor gatv2_scores(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                    float negative_slope) {
  check_gatv2(adjacency, x_target, x_source, a, negative_slope, kOp);
  const int64_t heads = x_target.size(1);
  Tensor scores = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, adjacency.device());
  if (scores.numel() > 0) {
    SGNN_DISPATCH(scores.device(), gatv2_scores_forward, adjacency.csr, x_target, x_source, a, negative_slope, scores);
  }
  if (autograd::needs_recording({x_target, x_source, a})) {
    check_transpose(adjacency, kOp);
    autograd::record(
        kOp, {x_target, x_source, a}, scores,
        [adjacency, negative_slope, rows = x_target.detach(), columns = x_source.detach(), saved_a = a.detach()](
            const Tensor& grad_scores, const autograd::NeedsGrad& needs) {
          std::vector<Tensor> grads(3);
          const Device device = grad_scores.device();
          if (needs[0] || needs[2]) {
            Tensor grad_rows = Tensor::zeros(rows.shape(), DType::Float32, device);
            Tensor grad_a = needs[2] ? Tensor::zeros(saved_a.shape(), DType::Float32, device) : Tensor();
            SGNN_DISPATCH(device, gatv2_scores_backward, adjacency.csr, Tensor(), grad_scores, rows, columns, saved_a,
                          negative_slope, grad_rows, grad_a);
            if (needs[0]) grads[0] = cast(grad_rows, rows.dtype());
            grads[2] = grad_a;
          }
          if (needs[1]) {
            // The columns' sums are rows of Aᵀ; the scores' gradient read in A's order through the edge map.
            Tensor map = adjacency.transpose_to_csr;
            Tensor gradient = grad_scores;
            if (map.dtype() != DType::Int32) {  // nnz ≥ 2^31: move the gradient into Aᵀ's order first
              gradient = Tensor::empty_like(grad_scores);
              SGNN_DISPATCH(device, gather_edges, map, grad_scores, gradient);
              map = Tensor();
            }
            Tensor grad_columns = Tensor::zeros(columns.shape(), DType::Float32, device);
            Tensor no_a;
            SGNN_DISPATCH(device, gatv2_scores_backward, adjacency.transpose, map, gradient, columns, rows, saved_a,
                          negative_slope, grad_columns, no_a);
            grads[1] = cast(grad_columns, columns.dtype());
          }
          return grads;
        });
  }
  return scores;
}

Tensor gatv2_attention(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope) {
  return edge_softmax(adjacency, gatv2_scores(adjacency, x_target, x_source, a, negative_slope));
}

Tensor gatv2_aggregate(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope, float dropout, bool training, Generator& generator) {
  constexpr const char* op = "gatv2_aggregate";
  check_gatv2(adjacency, x_target, x_source, a, negative_slope, op);
  SGNN_CHECK(dropout >= 0.0f && dropout < 1.0f, op, ": dropout must be in [0, 1), got ", dropout);
  const Device device = adjacency.device();
  if (!SGNN_DISPATCH(device, gatv2_aggregate_fused, x_target, x_source, adjacency)) {
    const Tensor attention = gatv2_attention(adjacency, x_target, x_source, a, negative_slope);
    return spmm(adjacency, ops::dropout(attention, dropout, training, generator), x_source);
  }
  const int64_t heads = x_target.size(1);
  std::optional<EntryDropout> entries;
  if (training && dropout > 0.0f) {  // ops::dropout's draw: one stream of nnz · H values
    entries = EntryDropout{dropout, generator.next_draw(static_cast<uint64_t>(adjacency.nnz() * heads))};
  }
  Tensor scores = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, device);
  Tensor row_lse = Tensor::empty({adjacency.num_rows(), heads}, DType::Float32, device);
  Tensor out = Tensor::empty(x_target.shape(), x_target.dtype(), device);
  SGNN_DISPATCH(device, gatv2_aggregate_forward, adjacency.csr, x_target, x_source, a, negative_slope, entries, scores,
                row_lse, out);
  if (autograd::needs_recording({x_target, x_source, a})) {
    check_transpose(adjacency, op);
    autograd::record(op, {x_target, x_source, a}, out,
                     [adjacency, negative_slope, entries, scores, row_lse, target = x_target.detach(),
                      source = x_source.detach(), saved_a = a.detach(),
                      saved_out = out.detach()](const Tensor& grad_out, const autograd::NeedsGrad&) {
                       const Device on = grad_out.device();
                       Tensor grad_target = Tensor::empty(target.shape(), DType::Float32, on);
                       Tensor grad_source = Tensor::empty(source.shape(), DType::Float32, on);
                       Tensor grad_a = Tensor::empty(saved_a.shape(), DType::Float32, on);
                       SGNN_DISPATCH(on, gatv2_aggregate_backward, adjacency, target, source, saved_a, negative_slope,
                                     entries, scores, row_lse, cast(saved_out, DType::Float32),
                                     cast(grad_out, DType::Float32), grad_target, grad_source, grad_a);
                       return std::vector<Tensor>{cast(grad_target, target.dtype()),
                                                  cast(grad_source, source.dtype()), grad_a};
                     });
  }
  return out;
}

}  // namespace sgnn::ops
