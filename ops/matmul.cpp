#include "ops/matmul.hpp"

#include <atomic>

#include "core/autograd.hpp"
#include "ops/matmul_backend.hpp"

namespace sgnn::ops {

namespace {
std::atomic<bool> tf32_allowed{false};

// c = op(a) · op(b) into a fresh [m, n] tensor.
Tensor product(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b) {
  const int64_t m = transpose_a ? a.size(1) : a.size(0);
  const int64_t n = transpose_b ? b.size(0) : b.size(1);
  Tensor c = Tensor::empty({m, n}, DType::Float32, a.device());
  SGNN_DISPATCH(a.device(), matmul_forward, a, transpose_a, b, transpose_b, c);
  return c;
}
}  // namespace

void set_allow_tf32(bool allowed) { tf32_allowed.store(allowed); }
bool allow_tf32() { return tf32_allowed.load(); }

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_dtype(a, DType::Float32, "matmul", "a");
  check_dtype(b, DType::Float32, "matmul", "b");
  check_dim(a, 2, "matmul", "a");
  check_dim(b, 2, "matmul", "b");
  check_same_device(a, b, "matmul");
  SGNN_CHECK(a.size(1) == b.size(0), "matmul: inner extents differ: a ", shape_str(a.shape()), " · b ",
             shape_str(b.shape()));
  Tensor c = product(a, false, b, false);
  if (autograd::needs_recording({a, b})) {
    autograd::record("matmul", {a, b}, c,
                     [sa = a.detach(), sb = b.detach()](const Tensor& grad_c, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = product(grad_c, false, sb, true);  // dA = dC·Bᵀ
                       if (needs[1]) grads[1] = product(sa, true, grad_c, false);  // dB = Aᵀ·dC
                       return grads;
                     });
  }
  return c;
}

}  // namespace sgnn::ops
