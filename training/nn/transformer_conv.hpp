// TransformerConv (Shi et al. 2021, "Masked Label Prediction"), PyG's
// TransformerConv(beta=False, root_weight=True), H heads of F features:
//   q_i = W_query · x_i + b_query, k_j = W_key · x_j + b_key, v_j = W_value · x_j + b_value   [N, H, F]
//   α[i←j] = edge_softmax(q_i · k_j / √F) over each row, then attention dropout
//   out_i = Σ_j α[i←j] v_j                      (ops::spmm with per-head edge values)
//   concat: [N, H·F]; otherwise the mean over heads [N, F]; plus the root
//   (skip) term W_skip · x_i + b_skip ([in, H·F] or [in, F]) when root_weight.
// The scores are the tuned SDDMM (ops::gsddmm Dot of q on the destination
// and k on the source), [E, H] float32; no [E, H, F] tensor. Over
// graph.adjacency_in({Normalization::None, SelfLoops::Remove}): the
// neighbours only, the node itself through the root term (PyG adds no self
// loops; the transformer model prepares its graph so). Linear layers Glorot
// uniform, biases zeros. In BFloat16 precision x, q, k, v and the output
// are bfloat16; the scores and the attention float32.
#pragma once

#include <memory>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

struct TransformerOptions {
  int64_t heads = 1;
  bool concat = true;
  float attention_dropout = 0.0f;  // in [0, 1)
  bool root_weight = true;
};

class TransformerConv : public Layer {
 public:
  // Draws the weights from `generator` now and the attention dropout masks
  // from it during training; `generator` must outlive the layer. Bad sizes
  // or options -> InvalidArgument.
  TransformerConv(int64_t in_features, int64_t out_features_per_head, Generator& generator,
                  TransformerOptions options = {});
  // x [N, in] with N the graph's node count -> [N, output_features()].
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  int64_t output_features() const { return options_.concat ? heads_ * features_ : features_; }

 private:
  int64_t heads_;
  int64_t features_;
  TransformerOptions options_;
  Generator* generator_;
  std::shared_ptr<Linear> query_, key_, value_, skip_;  // skip_: null without root_weight
};

}  // namespace sgnn::training
