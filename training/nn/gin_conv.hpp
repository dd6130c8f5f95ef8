// GINConv (Xu et al. 2019, "How Powerful are Graph Neural Networks?"), PyG's
// GINConv:
//   out_i = MLP((1 + ε) · x_i + Σ_{j in N(i)} x_j)
// the sum over the neighbours without self loops (ops::aggregate Sum over
// graph.adjacency_in({Normalization::None, SelfLoops::Remove}); prepare the
// graph so, as the gin model does, and nothing is derived), ε a learned
// scalar parameter [1] (train_eps, PyG's train_eps=True) or a constant
// buffer, and
// the MLP any layer the caller gives (the gin model's: Linear, BatchNorm1d,
// ReLU, Linear). An MLP that is a Sequential opening with a Linear of fewer
// outputs than in_features has that product taken before the sum (the same
// function: the sum and (1 + ε)· are linear; W's gradient and ε's then read
// [N, out] tensors, not [N, in]). In BFloat16 precision x and the sum are bfloat16, ε stays
// float32 (multiplied in float).
#pragma once

#include <memory>

#include "training/nn/layer.hpp"

namespace sgnn::training {

class GINConv : public Layer {
 public:
  // `mlp` reads [N, in] and is registered as the submodule "mlp";
  // in_features > 0 (InvalidArgument otherwise).
  GINConv(int64_t in_features, std::shared_ptr<Layer> mlp, bool train_eps = true, float initial_eps = 0.0f);
  // x [N, in] with N the graph's node count -> the MLP's output [N, out].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  const Tensor& eps() const { return eps_; }  // [1]
  int64_t in_features() const { return in_features_; }

 private:
  int64_t in_features_;
  std::shared_ptr<Layer> mlp_;
  Tensor eps_;
};

}  // namespace sgnn::training
