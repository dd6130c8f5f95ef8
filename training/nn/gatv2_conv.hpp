// GATv2Conv (Brody et al. 2022, "How Attentive are Graph Attention
// Networks?"), PyG's GATv2Conv(share_weights=False), H heads of F features:
//   s_i = W_source · x_i + b_source,  t_i = W_target · x_i + b_target   [N, H, F] each
//   e[i←j] = a · LeakyReLU_0.2(t_i + s_j)   per edge of A and head
//   α = edge_softmax(e) over each row, then attention dropout
//   out_i = Σ_j α[i←j] s_j                   (ops::spmm with per-head edge values)
//   concat: [N, H·F]; otherwise the mean over heads [N, F]; plus a bias.
// Scores and softmax in one op without an [E, H, F] tensor
// (ops::gatv2_attention). Over graph.adjacency_in({Normalization::None,
// SelfLoops::Add}): one self loop per node, as PyG's add_self_loops (the
// gatv2 model prepares its graph so: gat_graph_options()). Weights Glorot
// uniform, biases zeros. In BFloat16 precision x, the projections and the
// output are bfloat16 (products with the weights' bfloat16 copies); the
// scores, the attention, a and the biases are float32.
#pragma once

#include <memory>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

struct GATv2Options {
  int64_t heads = 1;
  bool concat = true;
  float attention_dropout = 0.0f;  // in [0, 1)
  float negative_slope = 0.2f;     // >= 0
  bool bias = true;
};

class GATv2Conv : public Layer {
 public:
  // Draws the weights from `generator` now and the attention dropout masks
  // from it during training; `generator` must outlive the layer. Bad sizes
  // or options -> InvalidArgument.
  GATv2Conv(int64_t in_features, int64_t out_features_per_head, Generator& generator, GATv2Options options = {});
  // x [N, in] with N the graph's node count -> [N, output_features()].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  int64_t output_features() const { return options_.concat ? heads_ * features_ : features_; }

 private:
  int64_t heads_;
  int64_t features_;
  GATv2Options options_;
  Generator* generator_;
  std::shared_ptr<Linear> source_;  // W_source, b_source (PyG's lin_l)
  std::shared_ptr<Linear> target_;  // W_target, b_target (PyG's lin_r)
  Tensor attention_;                // a [H, F]
  Tensor bias_;
};

}  // namespace sgnn::training
