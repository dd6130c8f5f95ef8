#include "ops/edge_softmax.hpp"

#include "core/autograd.hpp"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_checks.hpp"

namespace sgnn::ops {

namespace {

// check_edge_tensor (ops/sparse_checks.hpp) takes float32 only, as the other
// sparse ops do for now; bfloat16 scores get the same checks here.
int64_t check_scores(const Tensor& scores, const Adjacency& adjacency, const char* op) {
  check_floating(scores, op, "scores");
  if (scores.dtype() == DType::Float32) return check_edge_tensor(scores, adjacency, op, "scores");
  SGNN_CHECK(scores.device() == adjacency.device(), op, ": argument 'scores' is on ", scores.device().str(),
             " but the adjacency is on ", adjacency.device().str(), "; move it with .to(device)");
  SGNN_CHECK((scores.dim() == 1 || (scores.dim() == 2 && scores.size(1) >= 1)) && scores.size(0) == adjacency.nnz(),
             op, ": argument 'scores' must be [nnz] or [nnz, heads] with nnz = ", adjacency.nnz(), ", got ",
             shape_str(scores.shape()));
  return scores.dim() == 1 ? 1 : scores.size(1);
}

}  // namespace

Tensor edge_softmax(const Adjacency& adjacency, const Tensor& scores) {
  constexpr const char* kOp = "edge_softmax";
  check_adjacency(adjacency, kOp);
  const int64_t heads = check_scores(scores, adjacency, kOp);
  Tensor out = Tensor::empty_like(scores);
  SGNN_DISPATCH(scores.device(), edge_softmax_forward, adjacency.csr, heads, scores, out);

  if (autograd::needs_recording({scores})) {
    autograd::record(kOp, {scores}, out,
                     [csr = adjacency.csr, heads, saved = out.detach()](const Tensor& grad_out,
                                                                        const autograd::NeedsGrad&) {
                       Tensor grad_scores = Tensor::empty_like(saved);
                       SGNN_DISPATCH(saved.device(), edge_softmax_backward, csr, heads, saved, grad_out,
                                     grad_scores);
                       return std::vector<Tensor>{grad_scores};
                     });
  }
  return out;
}

}  // namespace sgnn::ops
