#include "ops/message_runners.hpp"

#include "ops/gspmm.hpp"
#include "ops/reduce.hpp"
#include "ops/shape.hpp"
#include "ops/spmm_backend.hpp"

namespace sgnn::ops::detail {

Shape with_rows(int64_t rows, const Shape& feature_shape) {
  Shape shape{rows};
  shape.insert(shape.end(), feature_shape.begin(), feature_shape.end());
  return shape;
}

Shape feature_shape_of(const Tensor& x) { return Shape(x.shape().begin() + 1, x.shape().end()); }

Tensor run_gspmm(const Csr& csr, const GspmmOperands& operands, const Shape& feature_shape, DType dtype,
                 Tensor& argument) {
  const Shape shape = with_rows(csr.num_rows, feature_shape);
  Tensor out = Tensor::empty(shape, dtype, csr.device());
  argument = reduce_keeps_argument(operands.reduce) ? Tensor::empty(shape, DType::Int32, csr.device()) : Tensor();
  if (out.numel() == 0) return out;
  SGNN_DISPATCH(csr.device(), gspmm_forward, csr, operands, out, argument);
  return out;
}

Tensor edges_to_nodes(const Adjacency& adjacency, const Tensor& g, Target target) {
  if (target == Target::E) return g;
  if (target == Target::V) return gspmm(adjacency, MessageKind::CopyE, ReduceKind::Sum, Tensor(), g);
  return gspmm_on_transpose(adjacency, MessageKind::CopyE, Tensor(), g);
}

Tensor gspmm_on_transpose(const Adjacency& adjacency, MessageKind message, const Tensor& x, const Tensor& e) {
  const BroadcastShape shape = broadcast_features(x, e, "gspmm (transposed)", "x", "e");
  GspmmOperands operands;
  operands.message = message;
  operands.reduce = ReduceKind::Sum;
  operands.heads = shape.heads;
  operands.features = shape.features;
  operands.u = x;
  operands.u_layout = shape.lhs;
  operands.e = e;
  operands.e_layout = shape.rhs;
  if (e.defined()) {
    if (adjacency.transpose_to_csr.dtype() == DType::Int32) {
      operands.edge_map = adjacency.transpose_to_csr;
    } else {  // nnz ≥ 2^31: no int32 map; move e into Aᵀ's order first
      operands.e = Tensor::empty_like(e);
      SGNN_DISPATCH(e.device(), gather_edges, adjacency.transpose_to_csr, e, operands.e);
    }
  }
  Tensor unused;
  return run_gspmm(adjacency.transpose, operands, shape.feature_shape, x.defined() ? x.dtype() : e.dtype(), unused);
}

Tensor sum_to_shape(const Tensor& g, const Shape& shape) {
  const Shape target(shape.begin() + 1, shape.end());
  const Shape have = feature_shape_of(g);
  if (have == target) return g;
  // Canonical [n, heads, features] for both, then sum the axes that were 1.
  const auto canonical = [](const Shape& features) -> std::pair<int64_t, int64_t> {
    if (features.empty()) return {1, 1};
    if (features.size() == 1) return {1, features[0]};
    return {features[0], features[1]};
  };
  const auto [heads, width] = canonical(have);
  const auto [target_heads, target_width] = canonical(target);
  Tensor x = ops::reshape(g, {g.size(0), heads, width});
  if (target_width == 1 && width > 1) x = ops::reshape(ops::sum(x, 2), {g.size(0), heads, 1});
  if (target_heads == 1 && heads > 1) x = ops::reshape(ops::sum(x, 1), {g.size(0), 1, target_width});
  return ops::reshape(x, shape);
}

}  // namespace sgnn::ops::detail
