#include "ops/matmul.hpp"

#include <atomic>

#include "core/autograd.hpp"
#include "ops/matmul_backend.hpp"
#include "ops/sparse_input.hpp"

namespace sgnn::ops {

namespace {
std::atomic<bool> tf32_allowed{false};

// c = op(a) · op(b) into a fresh [m, n] tensor of `dtype`.
Tensor product(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, DType dtype) {
  const int64_t m = transpose_a ? a.size(1) : a.size(0);
  const int64_t n = transpose_b ? b.size(0) : b.size(1);
  Tensor c = Tensor::empty({m, n}, dtype, a.device());
  SGNN_DISPATCH(a.device(), matmul_forward, a, transpose_a, b, transpose_b, c);
  return c;
}

void check_operands(const Tensor& a, const Tensor& b, const char* op, const char* a_name, const char* b_name) {
  check_floating(a, op, a_name);
  check_floating(b, op, b_name);
  check_dim(a, 2, op, a_name);
  check_dim(b, 2, op, b_name);
  check_same_device(a, b, op);
  SGNN_CHECK(a.dtype() == b.dtype(), op, ": ", a_name, " is ", dtype_name(a.dtype()), " but ", b_name, " is ",
             dtype_name(b.dtype()), " (cast one of them)");
  SGNN_CHECK(a.size(1) == b.size(0), op, ": inner extents differ: ", a_name, " ", shape_str(a.shape()), " · ",
             b_name, " ", shape_str(b.shape()));
}

}  // namespace

void set_allow_tf32(bool allowed) { tf32_allowed.store(allowed); }
bool allow_tf32() { return tf32_allowed.load(); }

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_operands(a, b, "matmul", "a", "b");
  Tensor c = product(a, false, b, false, a.dtype());
  if (autograd::needs_recording({a, b})) {
    autograd::record("matmul", {a, b}, c,
                     [sa = a.detach(), sb = b.detach()](const Tensor& grad_c, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = product(grad_c, false, sb, true, sa.dtype());  // dA = dC·Bᵀ
                       if (needs[1]) grads[1] = product(sa, true, grad_c, false, sb.dtype());  // dB = Aᵀ·dC
                       return grads;
                     });
  }
  return c;
}

Tensor matmul_weight(const Tensor& x, const Tensor& weight, const Tensor& weight_copy) {
  constexpr const char* op = "matmul_weight";
  check_dtype(weight, DType::Float32, op, "weight");
  check_floating(x, op, "x");
  if (x.dtype() == DType::Float32) {
    // An x that carries its non-zeros (bag-of-words input features) where the product over them measured faster.
    if (sparse_product_chosen(x, weight)) return sparse_rows_product(*x.sparse_rows(), weight);
    return matmul(x, weight);
  }
  check_operands(x, weight_copy, op, "x", "weight_copy");
  SGNN_CHECK(weight_copy.shape() == weight.shape() && weight_copy.device() == weight.device(), op,
             ": weight_copy ", shape_str(weight_copy.shape()), " on ", weight_copy.device().str(),
             " does not match weight ", shape_str(weight.shape()), " on ", weight.device().str());
  Tensor y = product(x, false, weight_copy, false, x.dtype());
  if (autograd::needs_recording({x, weight})) {
    autograd::record(op, {x, weight}, y,
                     [sx = x.detach(), copy = weight_copy.detach()](const Tensor& grad_y,
                                                                    const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = product(grad_y, false, copy, true, sx.dtype());      // dX = dY·Wᵀ
                       if (needs[1]) grads[1] = product(sx, true, grad_y, false, DType::Float32);  // dW = Xᵀ·dY
                       return grads;
                     });
  }
  return y;
}

}  // namespace sgnn::ops
