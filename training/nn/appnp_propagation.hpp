// APPNP's propagation (Klicpera et al. 2019, "Predict then Propagate"):
// personalised PageRank by K steps of power iteration from the
// predictions z = x,
//   h⁰ = z,   hᵏ = (1 - α) · Â · hᵏ⁻¹ + α · z,   out = hᴷ
// with Â the graph's prepared normalised adjacency D^-1/2 (A+I) D^-1/2
// (GraphInput::aggregate, as GCNConv). No parameters; differentiable in x
// (each step is an SpMM, a scale and an add). PyG's APPNP(K, alpha).
#pragma once

#include "training/nn/layer.hpp"

namespace sgnn::training {

class APPNPPropagation : public Layer {
 public:
  // steps (K) >= 1 and teleport (α) in [0, 1], else InvalidArgument.
  APPNPPropagation(int64_t steps, float teleport);
  // x [N, F] with N = the adjacency's node count -> [N, F].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  int64_t steps() const { return steps_; }
  float teleport() const { return teleport_; }

 private:
  int64_t steps_;
  float teleport_;
};

}  // namespace sgnn::training
