#include "ops/elementwise.hpp"

#include <algorithm>

#include "core/autograd.hpp"
#include "ops/elementwise_backend.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

void check_broadcastable(const Tensor& a, const Tensor& b, const char* op) {
  check_dtype(a, DType::Float32, op, "a");
  check_dtype(b, DType::Float32, op, "b");
  check_same_device(a, b, op);
  const Shape& big = a.shape();
  const Shape& small = b.shape();
  SGNN_CHECK(small.size() <= big.size() && std::equal(small.begin(), small.end(), big.end() - static_cast<std::ptrdiff_t>(small.size())),
             op, ": b's shape ", shape_str(small), " must equal a's shape ", shape_str(big),
             " or be a suffix of it (b is repeated over a's leading axes)");
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  Tensor out = Tensor::empty_like(a);
  SGNN_DISPATCH(a.device(), binary_forward, op, a, b, out);
  return out;
}

// Σ of `full` (a's shape) over the leading axes b was repeated along.
Tensor reduce_to(const Tensor& full, const Tensor& like) {
  if (full.shape() == like.shape()) return full;
  Tensor out = Tensor::empty(like.shape(), DType::Float32, full.device());
  const int64_t inner = like.numel();
  const AxisLayout layout{1, inner == 0 ? 0 : full.numel() / inner, inner};
  SGNN_DISPATCH(full.device(), sum_axis, full, layout, 1.0f, out);
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  check_broadcastable(a, b, "add");
  Tensor out = binary(BinaryOp::Add, a, b);
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
  Tensor out = binary(BinaryOp::Mul, a, b);
  if (autograd::needs_recording({a, b})) {
    autograd::record("mul", {a, b}, out,
                     [sa = a.detach(), sb = b.detach()](const Tensor& grad, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = binary(BinaryOp::Mul, grad, sb);
                       if (needs[1]) grads[1] = reduce_to(binary(BinaryOp::Mul, grad, sa), sb);
                       return grads;
                     });
  }
  return out;
}

Tensor scale(const Tensor& x, float factor) {
  check_dtype(x, DType::Float32, "scale", "x");
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
