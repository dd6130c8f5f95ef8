#include "ops/attention_softmax.hpp"

#include "core/autograd.hpp"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"

namespace sgnn::ops {

Tensor attention_softmax(const Adjacency& adjacency, const Tensor& x, const Tensor& y, float negative_slope) {
  constexpr const char* kOp = "attention_softmax";
  SGNN_CHECK(negative_slope >= 0.0f, kOp, ": negative_slope must be non-negative, got ", negative_slope);
  const int64_t heads = check_edge_sum_operands(adjacency, x, y, kOp);
  Tensor out = Tensor::empty({adjacency.nnz(), heads}, x.dtype(), x.device());
  SGNN_DISPATCH(x.device(), attention_softmax_forward, adjacency.csr, heads, negative_slope, x, y, out);

  if (autograd::needs_recording({x, y})) {
    check_transpose(adjacency, kOp);
    autograd::record(kOp, {x, y}, out,
                     [adjacency, heads, negative_slope, saved_x = x.detach(), saved_y = y.detach(),
                      saved_out = out.detach()](const Tensor& grad_out, const autograd::NeedsGrad& needs) {
                       Tensor grad_sums = Tensor::empty_like(saved_out);
                       SGNN_DISPATCH(saved_out.device(), attention_softmax_backward, adjacency.csr, heads,
                                     negative_slope, saved_x, saved_y, saved_out, grad_out, grad_sums);
                       return detail::edge_sum_gradients(adjacency, heads, saved_x.dtype(), grad_sums, needs);
                     });
  }
  return out;
}

}  // namespace sgnn::ops
