// The binary elementwise formulas, shared by the CPU and CUDA backends so
// both compute exactly the same function.
#pragma once

#include "core/host_device.hpp"
#include "core/tensor.hpp"
#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

// f(A{}, B{}, Out{}) with the element types (float or bfloat16) of a, b and out.
template <typename F>
void visit_operand_types(const Tensor& a, const Tensor& b, const Tensor& out, F&& f) {
  visit_floating(a.dtype(), [&](auto a_element) {
    visit_floating(b.dtype(), [&](auto b_element) {
      visit_floating(out.dtype(), [&](auto out_element) { f(a_element, b_element, out_element); });
    });
  });
}

SGNN_HOST_DEVICE float binary_value(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    // A NaN operand gives NaN, as torch.maximum and torch.minimum do (fmaxf would drop it).
    case BinaryOp::Maximum: return (a > b || a != a) ? a : b;
    case BinaryOp::Minimum: return (a < b || a != a) ? a : b;
  }
  return a;
}

// grad · ∂(a op b)/∂a (operand 0) or ∂(a op b)/∂b (operand 1). Maximum and
// minimum give each operand half the gradient where a == b, as PyTorch does.
SGNN_HOST_DEVICE float binary_gradient(BinaryOp op, int operand, float a, float b, float grad) {
  switch (op) {
    case BinaryOp::Add: return grad;
    case BinaryOp::Sub: return operand == 0 ? grad : -grad;
    case BinaryOp::Mul: return grad * (operand == 0 ? b : a);
    case BinaryOp::Div: return operand == 0 ? grad / b : -grad * a / (b * b);
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      if (a == b) return 0.5f * grad;
      const bool a_selected = op == BinaryOp::Maximum ? a > b : a < b;
      return a_selected == (operand == 0) ? grad : 0.0f;
    }
  }
  return grad;
}

}  // namespace sgnn::ops
