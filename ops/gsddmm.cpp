#include "ops/gsddmm.hpp"

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/gspmm.hpp"
#include "ops/message_runners.hpp"
#include "ops/sddmm.hpp"
#include "ops/sparse_checks.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "gsddmm";

int64_t target_rows(const Adjacency& adjacency, Target target) {
  return target == Target::U ? adjacency.num_cols() : target == Target::V ? adjacency.num_rows() : adjacency.nnz();
}

void check_operand(const Adjacency& adjacency, const Tensor& x, Target target, bool needed, BinaryKind op,
                   const char* name) {
  if (!needed) {
    SGNN_CHECK(!x.defined(), kOp, ": ", binary_kind_name(op), " reads no ", name, ", got ", name, " ",
               shape_str(x.shape()));
    return;
  }
  SGNN_CHECK(x.defined(), kOp, ": ", binary_kind_name(op), " needs ", name, " on ", target_name(target),
             ", got an undefined tensor");
  check_dense_operand(x, adjacency, target_rows(adjacency, target), kOp, name);
}

// Dot of two node tensors of one shape on opposite ends: the tuned SDDMM.
bool tuned_dot(BinaryKind op, const Tensor& lhs, const Tensor& rhs, Target lhs_target, Target rhs_target) {
  const bool opposite = (lhs_target == Target::V && rhs_target == Target::U) ||
                        (lhs_target == Target::U && rhs_target == Target::V);
  return op == BinaryKind::Dot && opposite && lhs.dim() >= 2 && lhs.dtype() == rhs.dtype() &&
         detail::feature_shape_of(lhs) == detail::feature_shape_of(rhs);
}

DType output_dtype(BinaryKind op, const Tensor& lhs, const Tensor& rhs) {
  if (op == BinaryKind::Dot) return DType::Float32;
  if (op == BinaryKind::CopyLhs) return lhs.dtype();
  if (op == BinaryKind::CopyRhs) return rhs.dtype();
  return lhs.dtype() == DType::BFloat16 && rhs.dtype() == DType::BFloat16 ? DType::BFloat16 : DType::Float32;
}

// The gradient of one operand (at `target`, of `shape`) from the edge tensor
// `weighted` = ∂out/∂operand · upstream gradient, formed on the edges.
Tensor to_operand(const Adjacency& adjacency, const Tensor& weighted, Target target, const Shape& shape) {
  const Shape edge_shape = detail::with_rows(adjacency.nnz(), Shape(shape.begin() + 1, shape.end()));
  return detail::edges_to_nodes(adjacency, detail::sum_to_shape(weighted, edge_shape), target);
}

// The gradient of the operand at `target` of a product gradient · other
// (other at `other_target`): fused into one g-SpMM where the two sit on
// opposite ends, so no [nnz, H, D] tensor is formed.
Tensor product_gradient(const Adjacency& adjacency, const Tensor& gradient, const Tensor& other, Target target,
                        Target other_target, const Shape& shape) {
  Tensor grad;
  if (target == Target::V && other_target == Target::U) {
    grad = gspmm(adjacency, MessageKind::UMulE, ReduceKind::Sum, other, gradient);
  } else if (target == Target::U && other_target == Target::V) {
    grad = detail::gspmm_on_transpose(adjacency, MessageKind::UMulE, other, gradient);
  } else {
    return to_operand(adjacency, gsddmm(adjacency, BinaryKind::Mul, gradient, other, Target::E, other_target),
                      target, shape);
  }
  return detail::sum_to_shape(grad, shape);
}

}  // namespace

Tensor gsddmm(const Adjacency& adjacency, BinaryKind op, const Tensor& lhs, const Tensor& rhs, Target lhs_target,
              Target rhs_target) {
  check_adjacency(adjacency, kOp);
  check_operand(adjacency, lhs, lhs_target, op != BinaryKind::CopyRhs, op, "lhs");
  check_operand(adjacency, rhs, rhs_target, op != BinaryKind::CopyLhs, op, "rhs");
  if (tuned_dot(op, lhs, rhs, lhs_target, rhs_target)) {
    return lhs_target == Target::V ? sddmm_dot(adjacency, lhs, rhs) : sddmm_dot(adjacency, rhs, lhs);
  }
  const BroadcastShape shape = broadcast_features(lhs, rhs, kOp, "lhs", "rhs");
  // As DGL: a dot product pairs whole feature rows (other axes broadcast), so
  // each operand's gradient is a product over its own features.
  SGNN_CHECK(op != BinaryKind::Dot || (lhs.dim() == rhs.dim() && (lhs.dim() == 1 || lhs.size(-1) == rhs.size(-1))), kOp,
             ": dot needs lhs and rhs with the same number of axes and the same last axis, got lhs ",
             shape_str(lhs.shape()), " and rhs ", shape_str(rhs.shape()));
  GsddmmOperands operands;
  operands.op = op;
  operands.heads = shape.heads;
  operands.features = shape.features;
  operands.lhs = lhs.detach();  // the backward's copies hold no autograd state
  operands.lhs_layout = shape.lhs;
  operands.lhs_target = lhs_target;
  operands.rhs = rhs.detach();
  operands.rhs_layout = shape.rhs;
  operands.rhs_target = rhs_target;
  Shape feature_shape = shape.feature_shape;
  if (op == BinaryKind::Dot && !feature_shape.empty()) feature_shape.pop_back();
  Tensor out = Tensor::empty(detail::with_rows(adjacency.nnz(), feature_shape), output_dtype(op, lhs, rhs),
                             adjacency.device());
  if (out.numel() > 0) SGNN_DISPATCH(out.device(), gsddmm_forward, adjacency.csr, operands, out);

  if (autograd::needs_recording({lhs, rhs})) {
    check_transpose(adjacency, kOp, lhs_target == Target::U || rhs_target == Target::U);
    autograd::record(
        kOp, {lhs, rhs}, out,
        [adjacency, operands, out_shape = out.shape(), saved_out = op == BinaryKind::Div ? out.detach() : Tensor()](
            const Tensor& grad_out, const autograd::NeedsGrad& needs) {
          const Tensor& left = operands.lhs;
          const Tensor& right = operands.rhs;
          // Dot's gradient is a product with one weight per head: [nnz, H, 1] (or [nnz, 1]).
          Tensor gradient = grad_out;
          if (operands.op == BinaryKind::Dot) {
            Shape with_head_axis = out_shape;
            with_head_axis.push_back(1);
            gradient = grad_out.view(with_head_axis);
          }
          std::vector<Tensor> grads(2);
          switch (operands.op) {
            case BinaryKind::Add:
            case BinaryKind::Sub:
            case BinaryKind::CopyLhs:
            case BinaryKind::CopyRhs:
              if (needs[0]) grads[0] = to_operand(adjacency, gradient, operands.lhs_target, left.shape());
              if (needs[1]) {
                grads[1] = to_operand(adjacency, gradient, operands.rhs_target, right.shape());
                if (operands.op == BinaryKind::Sub) grads[1] = scale(grads[1], -1.0f);
              }
              break;
            case BinaryKind::Mul:
            case BinaryKind::Dot:
              if (needs[0]) {
                grads[0] = product_gradient(adjacency, gradient, right, operands.lhs_target, operands.rhs_target,
                                            left.shape());
              }
              if (needs[1]) {
                grads[1] = product_gradient(adjacency, gradient, left, operands.rhs_target, operands.lhs_target,
                                            right.shape());
              }
              break;
            case BinaryKind::Div:
              // d(l / r) = dl / r − (l / r) · dr / r
              if (needs[0]) {
                grads[0] = to_operand(adjacency,
                                      gsddmm(adjacency, BinaryKind::Div, gradient, right, Target::E, operands.rhs_target),
                                      operands.lhs_target, left.shape());
              }
              if (needs[1]) {
                const Tensor quotient = gsddmm(adjacency, BinaryKind::Mul, gradient, saved_out, Target::E, Target::E);
                grads[1] = scale(to_operand(adjacency,
                                            gsddmm(adjacency, BinaryKind::Div, quotient, right, Target::E,
                                                   operands.rhs_target),
                                            operands.rhs_target, right.shape()),
                                 -1.0f);
              }
              break;
          }
          if (needs[0]) grads[0] = cast(grads[0], left.dtype());
          if (needs[1]) grads[1] = cast(grads[1], right.dtype());
          return grads;
        });
  }
  return out;
}

Tensor gsddmm(const Adjacency& adjacency, std::string_view op, const Tensor& lhs, const Tensor& rhs,
              std::string_view lhs_target, std::string_view rhs_target) {
  const auto parse_target = [](std::string_view text, const char* argument) {
    if (text == "u") return Target::U;
    if (text == "v") return Target::V;
    if (text == "e") return Target::E;
    throw InvalidArgument(::sgnn::detail::concat(kOp, ": ", argument, " must be \"u\", \"v\" or \"e\", got \"", text,
                                                 "\""));
  };
  return gsddmm(adjacency, parse_binary_kind(op, kOp), lhs, rhs, parse_target(lhs_target, "lhs_target"),
                parse_target(rhs_target, "rhs_target"));
}

}  // namespace sgnn::ops
