#include "training/bf16_sparse_bridge.hpp"

#include "ops/cast.hpp"
#include "ops/spmm.hpp"

namespace sgnn::training::bf16_bridge {

namespace {

Tensor wide(const Tensor& x) { return x.defined() ? ops::cast(x, DType::Float32) : x; }

}  // namespace

Tensor spmm(const Adjacency& adjacency, const Tensor& b) {
  check_defined(b, "spmm", "b");
  return ops::cast(ops::spmm(adjacency, wide(b)), b.dtype());
}

Tensor spmm(const Adjacency& adjacency, const Tensor& edge_values, const Tensor& b) {
  check_defined(b, "spmm", "b");
  return ops::cast(ops::spmm(adjacency, wide(edge_values), wide(b)), b.dtype());
}

Tensor through_float32(const std::function<Tensor(const Tensor&)>& float32_op, const Tensor& x) {
  check_defined(x, "weighted_spmm", "x");
  return ops::cast(float32_op(wide(x)), x.dtype());
}

}  // namespace sgnn::training::bf16_bridge
