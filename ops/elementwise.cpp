#include "ops/elementwise.hpp"

#include <algorithm>

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise_backend.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

void check_broadcastable(const Tensor& a, const Tensor& b, const char* op) {
  check_floating(a, op, "a");
  check_floating(b, op, "b");
  check_same_device(a, b, op);
  const Shape& big = a.shape();
  const Shape& small = b.shape();
  SGNN_CHECK(small.size() <= big.size() && std::equal(small.begin(), small.end(), big.end() - static_cast<std::ptrdiff_t>(small.size())),
             op, ": b's shape ", shape_str(small), " must equal a's shape ", shape_str(big),
             " or be a suffix of it (b is repeated over a's leading axes)");
}

// a op b as `dtype` (a's dtype in the forward; a gradient's own dtype in backward).
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, DType dtype) {
  Tensor out = Tensor::empty(a.shape(), dtype, a.device());
  SGNN_DISPATCH(a.device(), binary_forward, op, a, b, out);
  return out;
}

// Σ of `full` (a's shape) as `like`'s dtype over the leading axes b was repeated along.
Tensor reduce_to(const Tensor& full, const Tensor& like) {
  if (full.shape() == like.shape()) return cast(full, like.dtype());
  Tensor out = Tensor::empty(like.shape(), like.dtype(), full.device());
  const int64_t inner = like.numel();
  const AxisLayout layout{1, inner == 0 ? 0 : full.numel() / inner, inner};
  SGNN_DISPATCH(full.device(), sum_axis, full, layout, 1.0f, out);
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  check_broadcastable(a, b, "add");
  Tensor out = binary(BinaryOp::Add, a, b, a.dtype());
  if (autograd::needs_recording({a, b})) {
    autograd::record("add", {a, b}, out,
                     [like = b.detach()](const Tensor& grad, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = grad;
                       if (needs[1]) grads[1] = reduce_to(grad, like);
                       return grads;
                     });
  }
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  check_broadcastable(a, b, "mul");
  Tensor out = binary(BinaryOp::Mul, a, b, a.dtype());
  if (autograd::needs_recording({a, b})) {
    autograd::record("mul", {a, b}, out,
                     [sa = a.detach(), sb = b.detach()](const Tensor& grad, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = binary(BinaryOp::Mul, grad, sb, sa.dtype());
                       // The products land in b's dtype before the sum: a float32 b is never rounded to bfloat16.
                       if (needs[1]) grads[1] = reduce_to(binary(BinaryOp::Mul, grad, sa, sb.dtype()), sb);
                       return grads;
                     });
  }
  return out;
}

Tensor scale(const Tensor& x, float factor) {
  check_floating(x, "scale", "x");
  Tensor out = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), scale_forward, x, factor, out);
  if (autograd::needs_recording({x})) {
    autograd::record("scale", {x}, out, [factor](const Tensor& grad, const autograd::NeedsGrad&) {
      Tensor grad_x = Tensor::empty_like(grad);
      SGNN_DISPATCH(grad.device(), scale_forward, grad, factor, grad_x);
      return std::vector<Tensor>{grad_x};
    });
  }
  return out;
}

}  // namespace sgnn::ops
