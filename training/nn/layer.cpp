#include "training/nn/layer.hpp"

#include "ops/spmm.hpp"

namespace sgnn::training {

const Adjacency& GraphInput::graph() const {
  SGNN_CHECK(adjacency != nullptr, "GraphInput: no adjacency given (the layer needs the graph)");
  return *adjacency;
}

Tensor GraphInput::aggregate(const Tensor& x) const {
  if (weighted_spmm) return weighted_spmm(x);
  return ops::spmm(graph(), x);
}

}  // namespace sgnn::training
