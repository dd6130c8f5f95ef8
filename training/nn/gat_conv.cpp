#include "training/nn/gat_conv.hpp"

#include "ops/attention_softmax.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"
#include "ops/shape.hpp"
#include "ops/spmm.hpp"
#include "training/nn/init.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

GATConv::GATConv(int64_t in_features, int64_t out_features_per_head, Generator& generator, GATOptions options)
    : heads_(options.heads), features_(out_features_per_head), options_(options), generator_(&generator) {
  SGNN_CHECK(heads_ > 0, "GATConv: heads must be positive, got ", heads_);
  SGNN_CHECK(options.attention_dropout >= 0.0f && options.attention_dropout < 1.0f,
             "GATConv: attention dropout must be in [0, 1), got ", options.attention_dropout);
  SGNN_CHECK(options.projected_dropout >= 0.0f && options.projected_dropout < 1.0f,
             "GATConv: projected dropout must be in [0, 1), got ", options.projected_dropout);
  SGNN_CHECK(options.negative_slope >= 0.0f, "GATConv: negative slope must be non-negative, got ",
             options.negative_slope);
  weight_ = glorot_uniform({in_features, heads_ * features_}, in_features, heads_ * features_, generator);
  // PyG's glorot on att [1, H, F] uses fans H and F.
  attention_row_ = glorot_uniform({heads_, features_}, heads_, features_, generator);
  attention_column_ = glorot_uniform({heads_, features_}, heads_, features_, generator);
  register_parameter("weight", weight_);
  register_parameter("attention_row", attention_row_);
  register_parameter("attention_column", attention_column_);
  if (options.bias) {
    bias_ = Tensor::zeros({output_features()});
    register_parameter("bias", bias_);
  }
}

int64_t GATConv::output_features() const { return options_.concat ? heads_ * features_ : features_; }

Tensor GATConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, weight_.size(0), "GATConv");
  const Adjacency& adjacency = graph.graph();
  SGNN_CHECK(x.size(0) == adjacency.num_cols() && adjacency.num_rows() == adjacency.num_cols(),
             "GATConv: x has ", x.size(0), " rows, the graph is ", adjacency.num_rows(), " x ",
             adjacency.num_cols(), " (must be square with one row per node)");
  const Tensor projected =
      ops::reshape(ops::matmul_weight(x, weight_, compute_copy(weight_)), {x.size(0), heads_, features_});
  return attend(adjacency, projected, projected);
}

Tensor GATConv::forward_block(const Adjacency& adjacency, const Tensor& x,
                              const std::function<Tensor(const Tensor&)>& extend_rows) {
  check_layer_input(x, weight_.size(0), "GATConv");
  SGNN_CHECK(x.size(0) == adjacency.num_rows(), "GATConv: x has ", x.size(0), " rows, the block ",
             adjacency.num_rows());
  const Tensor projected = ops::matmul_weight(x, weight_, compute_copy(weight_));  // [rows, H·F]
  const Tensor extended = extend_rows(projected);    // [columns, H·F]
  SGNN_CHECK(extended.dim() == 2 && extended.size(0) == adjacency.num_cols() && extended.size(1) == projected.size(1),
             "GATConv: the extended rows are ", shape_str(extended.shape()), ", the block has ", adjacency.num_cols(),
             " columns");
  return attend(adjacency, ops::reshape(projected, {x.size(0), heads_, features_}),
                ops::reshape(extended, {adjacency.num_cols(), heads_, features_}));
}

Tensor GATConv::forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination) {
  check_layer_input(x_source, weight_.size(0), "GATConv");
  check_layer_input(x_destination, weight_.size(0), "GATConv");
  SGNN_CHECK(x_source.size(0) == adjacency.num_cols() && x_destination.size(0) == adjacency.num_rows(),
             "GATConv: x_source has ", x_source.size(0), " rows and x_destination ", x_destination.size(0),
             "; the adjacency is ", adjacency.num_rows(), " x ", adjacency.num_cols(),
             " (destinations x sources)");
  const auto project = [&](const Tensor& x) {
    return ops::reshape(ops::matmul_weight(x, weight_, compute_copy(weight_)), {x.size(0), heads_, features_});
  };
  return attend(adjacency, project(x_destination), project(x_source));
}

Tensor GATConv::attend(const Adjacency& adjacency, const Tensor& projected_rows, const Tensor& projected_columns) {
  const int64_t rows = projected_rows.size(0);
  const Tensor score_row = ops::sum(ops::mul(projected_rows, attention_row_), 2);              // [rows, H]
  const Tensor score_column = ops::sum(ops::mul(projected_columns, attention_column_), 2);     // [columns, H]
  // One op from the score halves to the attention, in the activation dtype
  // (bfloat16 in a bf16 model: every per-edge pass moves half the bytes,
  // docs/mixed_precision.md); the per-edge scores are never stored.
  const Tensor attention =
      ops::dropout(ops::attention_softmax(adjacency, score_row, score_column, options_.negative_slope),
                   options_.attention_dropout, is_training(), *generator_);
  const Tensor values = ops::dropout(projected_columns, options_.projected_dropout, is_training(), *generator_);
  const Tensor aggregated = ops::spmm(adjacency, attention, values);  // [rows, H, F]
  const Tensor combined = options_.concat ? ops::reshape(aggregated, {rows, heads_ * features_})
                                          : ops::mean(aggregated, 1);
  return bias_.defined() ? ops::add(combined, bias_) : combined;
}

}  // namespace sgnn::training
