#include "ops/sddmm.hpp"

#include <algorithm>

#include "core/autograd.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"

namespace sgnn::ops {

namespace {

// The shapes shared by x and y: [n, F] (one head) or [n, H, F].
struct DotShape {
  int64_t heads;
  int64_t features;
};

DotShape check_dot_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op) {
  check_dense_operands(adjacency, x, y, op);
  SGNN_CHECK(x.dim() == 2 || x.dim() == 3, op, ": x must be [n_rows, F] or [n_rows, H, F], got ",
             shape_str(x.shape()));
  SGNN_CHECK(y.dim() == x.dim() && std::equal(x.shape().begin() + 1, x.shape().end(), y.shape().begin() + 1), op,
             ": x ", shape_str(x.shape()), " and y ", shape_str(y.shape()), " must agree beyond the first axis");
  return {x.dim() == 3 ? x.size(1) : 1, x.size(-1)};
}

}  // namespace

Tensor sddmm_dot(const Adjacency& adjacency, const Tensor& x, const Tensor& y) {
  constexpr const char* kOp = "sddmm_dot";
  const DotShape shape = check_dot_operands(adjacency, x, y, kOp);
  const Shape out_shape = x.dim() == 3 ? Shape{adjacency.nnz(), shape.heads} : Shape{adjacency.nnz()};
  Tensor out = detail::run_sddmm_dot(adjacency, shape.heads, shape.features, x, y, out_shape);

  if (autograd::needs_recording({x, y})) {
    check_transpose(adjacency, kOp);
    autograd::record(kOp, {x, y}, out,
                     [adjacency, shape, saved_x = x.detach(), saved_y = y.detach()](
                         const Tensor& grad_out, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       // dx[i] = Σ_{e in row i} g[e] · y[col(e)]: SpMM on A weighted by the gradient.
                       if (needs[0]) {
                         grads[0] = detail::run_spmm(adjacency.csr, grad_out, shape.heads, shape.features, saved_y,
                                                  saved_x.shape());
                       }
                       // dy[j] = Σ_{e in column j} g[e] · x[row(e)]: the same on Aᵀ.
                       if (needs[1]) {
                         grads[1] = detail::run_spmm_transposed(adjacency, grad_out, shape.heads, shape.features,
                                                                saved_x, saved_y.shape());
                       }
                       return grads;
                     });
  }
  return out;
}

Tensor sddmm_add(const Adjacency& adjacency, const Tensor& x, const Tensor& y) {
  constexpr const char* kOp = "sddmm_add";
  const int64_t heads = check_edge_sum_operands(adjacency, x, y, kOp);
  Tensor out = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, x.device());
  SGNN_DISPATCH(x.device(), sddmm_add_forward, adjacency.csr, heads, x, y, out);

  if (autograd::needs_recording({x, y})) {
    check_transpose(adjacency, kOp);
    autograd::record(kOp, {x, y}, out,
                     [adjacency, heads, dtype = x.dtype()](const Tensor& grad_out, const autograd::NeedsGrad& needs) {
                       return detail::edge_sum_gradients(adjacency, heads, dtype, grad_out, needs);
                     });
  }
  return out;
}

}  // namespace sgnn::ops
