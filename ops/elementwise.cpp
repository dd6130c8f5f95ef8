#include "ops/elementwise.hpp"

#include "core/autograd.hpp"
#include "ops/elementwise_broadcast.hpp"

namespace sgnn::ops {

namespace {

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::Maximum: return "maximum";
    case BinaryOp::Minimum: return "minimum";
  }
  return "binary op";
}

// Add and Sub need only the gradient itself (and the operands' shapes).
bool gradient_reads_operands(BinaryOp op) { return op != BinaryOp::Add && op != BinaryOp::Sub; }

// The gradient of operand `operand` (0: a, 1: b), of that operand's shape and dtype.
Tensor operand_gradient(BinaryOp op, int operand, const Tensor& grad, const Tensor& a, const Tensor& b,
                        const BroadcastLayout& layout, const Shape& shape, DType dtype) {
  if (!gradient_reads_operands(op)) {
    const float sign = op == BinaryOp::Sub && operand == 1 ? -1.0f : 1.0f;
    return sum_to_operand(grad, layout, operand, sign, shape, dtype);
  }
  // The full gradient lands in the operand's dtype when nothing is summed
  // (one rounding), and in float32 otherwise: the sum rounds once at the end.
  const bool summed = shape_numel(shape) != layout.numel;
  Tensor full = Tensor::empty(grad.shape(), summed ? DType::Float32 : dtype, grad.device());
  SGNN_DISPATCH(grad.device(), binary_backward, op, operand, grad, a, b, layout, full);
  return summed ? sum_to_operand(full, layout, operand, 1.0f, shape, dtype) : full.view(shape);
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = op_name(op);
  check_floating(a, name, "a");
  check_floating(b, name, "b");
  check_same_device(a, b, name);
  const BroadcastLayout layout = broadcast_layout(a.shape(), b.shape(), name);
  Tensor out = Tensor::empty(broadcast_shape(a.shape(), b.shape(), name), a.dtype(), a.device());
  SGNN_DISPATCH(a.device(), binary_forward, op, a, b, layout, out);
  if (autograd::needs_recording({a, b})) {
    const bool save = gradient_reads_operands(op);
    autograd::record(name, {a, b}, out,
                     [op, layout, a_shape = a.shape(), b_shape = b.shape(), a_dtype = a.dtype(), b_dtype = b.dtype(),
                      sa = save ? a.detach() : Tensor(), sb = save ? b.detach() : Tensor()](
                         const Tensor& grad, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(2);
                       if (needs[0]) grads[0] = operand_gradient(op, 0, grad, sa, sb, layout, a_shape, a_dtype);
                       if (needs[1]) grads[1] = operand_gradient(op, 1, grad, sa, sb, layout, b_shape, b_dtype);
                       return grads;
                     });
  }
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Minimum, a, b); }

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
