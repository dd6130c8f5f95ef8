// GCNConv (Kipf & Welling 2017): out = Â·X·W + b with Â the graph's prepared
// normalised adjacency D^-1/2 (A+I) D^-1/2 (GraphInput::aggregate, computed
// once by graph_io and never renormalised here). The product runs on the
// narrower side: Â·(X·W) when out <= in, (Â·X)·W when in < out, so the SpMM
// moves min(in, out) features per edge. In BFloat16 precision x and the
// result are bfloat16 and the products use the weight's bfloat16 copy
// (ops::matmul_weight); the bias stays float32 (added in float).
#pragma once

#include <functional>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

class GCNConv : public Layer {
 public:
  GCNConv(int64_t in_features, int64_t out_features, Generator& generator, bool bias = true);
  // x [N, in] with N = the adjacency's node count -> [N, out].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  // The layer with another aggregation (distributed training: the halo
  // exchange before the local SpMM); forward() is this with graph.aggregate.
  Tensor forward_with(const std::function<Tensor(const Tensor&)>& aggregate, const Tensor& x);
  bool aggregates_first() const { return weight_.size(0) < weight_.size(1); }

 private:
  Tensor weight_;
  Tensor bias_;
};

}  // namespace sgnn::training
