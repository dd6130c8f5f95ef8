#include "training/nn/gatv2_conv.hpp"

#include "ops/elementwise.hpp"
#include "ops/gatv2_attention.hpp"
#include "ops/reduce.hpp"
#include "ops/shape.hpp"
#include "training/nn/init.hpp"

namespace sgnn::training {

GATv2Conv::GATv2Conv(int64_t in_features, int64_t out_features_per_head, Generator& generator, GATv2Options options)
    : heads_(options.heads), features_(out_features_per_head), options_(options), generator_(&generator) {
  SGNN_CHECK(heads_ > 0 && features_ > 0, "GATv2Conv: heads and features per head must be positive, got ", heads_,
             " and ", features_);
  SGNN_CHECK(options.attention_dropout >= 0.0f && options.attention_dropout < 1.0f,
             "GATv2Conv: attention dropout must be in [0, 1), got ", options.attention_dropout);
  SGNN_CHECK(options.negative_slope >= 0.0f, "GATv2Conv: negative slope must be non-negative, got ",
             options.negative_slope);
  source_ = register_module("source", std::make_shared<Linear>(in_features, heads_ * features_, generator));
  target_ = register_module("target", std::make_shared<Linear>(in_features, heads_ * features_, generator));
  attention_ = glorot_uniform({heads_, features_}, heads_, features_, generator);  // PyG's fans of att [1, H, F]
  register_parameter("attention", attention_);
  if (options.bias) {
    bias_ = Tensor::zeros({output_features()});
    register_parameter("bias", bias_);
  }
}

Tensor GATv2Conv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, source_->weight().size(0), "GATv2Conv");
  const Adjacency& adjacency = graph.adjacency_in({graph_io::Normalization::None, graph_io::SelfLoops::Add});
  const int64_t n = adjacency.num_rows();
  SGNN_CHECK(x.size(0) == n, "GATv2Conv: x has ", x.size(0), " rows, the graph has ", n, " nodes");
  const Tensor source = ops::reshape(source_->forward(x), {n, heads_, features_});
  const Tensor target = ops::reshape(target_->forward(x), {n, heads_, features_});
  // softmax of a · LeakyReLU(W_r x_i + W_l x_j) over each row, dropout, then the weighted sum of W_l x_j
  const Tensor aggregated = ops::gatv2_aggregate(adjacency, target, source, attention_, options_.negative_slope,
                                                 options_.attention_dropout, is_training(), *generator_);  // [N, H, F]
  const Tensor combined = options_.concat ? ops::reshape(aggregated, {n, heads_ * features_}) : ops::mean(aggregated, 1);
  return bias_.defined() ? ops::add(combined, bias_) : combined;
}

}  // namespace sgnn::training
