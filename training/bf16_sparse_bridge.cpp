#include "training/bf16_sparse_bridge.hpp"

#include "ops/cast.hpp"
#include "ops/sddmm.hpp"

namespace sgnn::training::bf16_bridge {

namespace {

Tensor wide(const Tensor& x) { return x.defined() ? ops::cast(x, DType::Float32) : x; }

}  // namespace

Tensor sddmm_add(const Adjacency& adjacency, const Tensor& x, const Tensor& y) {
  check_defined(x, "sddmm_add", "x");
  return ops::cast(ops::sddmm_add(adjacency, wide(x), wide(y)), x.dtype());
}

Tensor through_float32(const std::function<Tensor(const Tensor&)>& float32_op, const Tensor& x) {
  check_defined(x, "weighted_spmm", "x");
  return ops::cast(float32_op(wide(x)), x.dtype());
}

}  // namespace sgnn::training::bf16_bridge
