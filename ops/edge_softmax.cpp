#include "ops/edge_softmax.hpp"

#include "core/autograd.hpp"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_checks.hpp"

namespace sgnn::ops {

Tensor edge_softmax(const Adjacency& adjacency, const Tensor& scores) {
  constexpr const char* kOp = "edge_softmax";
  check_adjacency(adjacency, kOp);
  // [nnz, H, 1] is checked as [nnz, H]: the same elements in the same order.
  const bool three_axes = scores.defined() && scores.dim() == 3;
  SGNN_CHECK(!three_axes || scores.size(2) == 1, kOp,
             ": argument 'scores' must be [nnz], [nnz, heads] or [nnz, heads, 1], got ", shape_str(scores.shape()));
  const int64_t heads =
      check_edge_tensor(three_axes ? scores.view({scores.size(0), scores.size(1)}) : scores, adjacency, kOp,
                        "scores");
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
