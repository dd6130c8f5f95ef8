#include "ops/sddmm.hpp"

#include <algorithm>

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"

namespace sgnn::ops {

namespace {

// x or y: float32 or bfloat16 (both the same), on the adjacency's device,
// first axis `rows`.
void check_operand(const Tensor& tensor, DType dtype, const Adjacency& adjacency, int64_t rows, const char* op,
                   const char* argument) {
  check_dense_operand(tensor, adjacency, rows, op, argument);
  SGNN_CHECK(tensor.dtype() == dtype, op, ": x and y must have one dtype, got ", dtype_name(dtype), " and ",
             dtype_name(tensor.dtype()));
}

void check_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op) {
  check_adjacency(adjacency, op);
  check_defined(x, op, "x");
  check_operand(x, x.dtype(), adjacency, adjacency.num_rows(), op, "x");
  check_operand(y, x.dtype(), adjacency, adjacency.num_cols(), op, "y");
}

// The shapes shared by x and y: [n, F] (one head) or [n, H, F].
struct DotShape {
  int64_t heads;
  int64_t features;
};

DotShape check_dot_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op) {
  check_operands(adjacency, x, y, op);
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
  Tensor out = detail::run_sddmm_dot(adjacency.csr, shape.heads, shape.features, x, y, out_shape);

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
                         grads[1] = detail::run_spmm(adjacency.transpose, detail::to_transpose_order(adjacency, grad_out),
                                                  shape.heads, shape.features, saved_x, saved_y.shape());
                       }
                       return grads;
                     });
  }
  return out;
}

Tensor sddmm_add(const Adjacency& adjacency, const Tensor& x, const Tensor& y) {
  constexpr const char* kOp = "sddmm_add";
  check_operands(adjacency, x, y, kOp);
  SGNN_CHECK(x.dim() == 2 && y.dim() == 2 && x.size(1) == y.size(1) && x.size(1) >= 1, kOp,
             ": x and y must be [n_rows, H] and [n_cols, H] with the same H, got ", shape_str(x.shape()), " and ",
             shape_str(y.shape()));
  const int64_t heads = x.size(1);
  Tensor out = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, x.device());
  SGNN_DISPATCH(x.device(), sddmm_add_forward, adjacency.csr, heads, x, y, out);

  if (autograd::needs_recording({x, y})) {
    check_transpose(adjacency, kOp);
    autograd::record(kOp, {x, y}, out,
                     [adjacency, heads, dtype = x.dtype()](const Tensor& grad_out, const autograd::NeedsGrad& needs) {
                       // Row sums of the gradient, as an SpMM of the gradient with a column of ones, in
                       // float; rounded once to bfloat16 for bfloat16 x and y.
                       std::vector<Tensor> grads(2);
                       const Device device = grad_out.device();
                       const Shape x_shape{adjacency.num_rows(), heads};
                       const Shape y_shape{adjacency.num_cols(), heads};
                       if (needs[0]) {
                         const Tensor ones = Tensor::full(y_shape, 1.0, DType::Float32, device);
                         grads[0] = cast(detail::run_spmm(adjacency.csr, grad_out, heads, 1, ones, x_shape), dtype);
                       }
                       if (needs[1]) {
                         const Tensor ones = Tensor::full(x_shape, 1.0, DType::Float32, device);
                         grads[1] = cast(detail::run_spmm(adjacency.transpose,
                                                          detail::to_transpose_order(adjacency, grad_out), heads, 1,
                                                          ones, y_shape),
                                         dtype);
                       }
                       return grads;
                     });
  }
  return out;
}

}  // namespace sgnn::ops
