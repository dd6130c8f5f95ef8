// SkipGCNConv: a layer defined outside the library (docs/extending.md), a
// GCNConv with a weight of its own for each node's own features,
//   out = Â·(X·W) + X·W_root + b,
// over the graph's prepared adjacency Â (GraphInput::aggregate). It composes
// the library's ops and launches nothing itself.
#pragma once

#include "core/generator.hpp"
#include "training/nn/layer.hpp"

namespace skip_gcn {

// [extending:layer_header]
class SkipGCNConv : public sgnn::training::Layer {
 public:
  // Draws W and W_root from `generator` (Glorot uniform); b starts at zero.
  SkipGCNConv(int64_t in_features, int64_t out_features, sgnn::Generator& generator);
  // x [N, in] -> [N, out], N the graph's node count; float32, or bfloat16 in
  // bf16 precision (the products then use the weights' bfloat16 copies).
  sgnn::Tensor forward(const sgnn::training::GraphInput& graph, const sgnn::Tensor& x) override;

 private:
  sgnn::Tensor weight_;       // W [in, out]: the neighbourhood's
  sgnn::Tensor root_weight_;  // W_root [in, out]: the node's own
  sgnn::Tensor bias_;         // b [out]
};
// [extending:end]

}  // namespace skip_gcn
