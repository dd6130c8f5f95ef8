// SGConv (Wu et al. 2019, "Simplifying Graph Convolutional Networks"):
//   out = Â^K · X · W + b
// with Â the graph's prepared normalised adjacency D^-1/2 (A+I) D^-1/2
// (GraphInput::aggregate, as GCNConv) and W, b a Linear. The K-hop
// propagation Â^K · X has no parameters, so it is computed once per graph
// and input and kept (PyG's SGConv(cached=True)): every later forward is one
// matmul. The cache is keyed by the input's and the adjacency's storage
// (both held, so neither address can be reused while cached); an input that
// requires a gradient is propagated every time (its gradient flows through
// Â^K). In BFloat16 precision the propagation runs in bfloat16. A captured
// training step (CUDA Graph) holds the matmul only: the trainer's first
// step, eager, fills the cache.
#pragma once

#include <memory>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

class SGConv : public Layer {
 public:
  // hops (K) >= 1 and sizes > 0, else InvalidArgument; draws W from `generator`.
  SGConv(int64_t in_features, int64_t out_features, int64_t hops, Generator& generator, bool bias = true);
  // x [N, in] with N = the adjacency's node count -> [N, out].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  // linear(rows of Â^K · x): only the rows asked for pass through W. The
  // gathered rows are kept beside the propagation, for the same rows tensor
  // (held, as the input is); at most R · in more elements.
  Tensor forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) override;
  bool forward_rows_is_cheaper() const override { return true; }
  int64_t hops() const { return hops_; }
  const Linear& linear() const { return *linear_; }  // W and b
  // Â^K · x, computed on first use and kept while the graph and input stay the same.
  Tensor propagated(const GraphInput& graph, const Tensor& x);

 private:
  int64_t hops_;
  std::shared_ptr<Linear> linear_;
  Tensor cached_input_;   // the input whose propagation is kept (holds its storage)
  Tensor cached_indptr_;  // the adjacency it was propagated on (its row pointers, held likewise)
  Tensor cached_;         // Â^K · cached_input_
  Tensor selected_rows_;  // the rows tensor of selected_ (holds its storage)
  Tensor selected_from_;  // the propagation selected_ was gathered from (held likewise)
  Tensor selected_;       // selected_from_'s rows selected_rows_
};

}  // namespace sgnn::training
