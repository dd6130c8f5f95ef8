#include "training/nn/transformer_conv.hpp"

#include <cmath>

#include "ops/dropout.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/elementwise.hpp"
#include "ops/gsddmm.hpp"
#include "ops/reduce.hpp"
#include "ops/shape.hpp"
#include "ops/spmm.hpp"

namespace sgnn::training {

TransformerConv::TransformerConv(int64_t in_features, int64_t out_features_per_head, Generator& generator,
                                 TransformerOptions options)
    : heads_(options.heads), features_(out_features_per_head), options_(options), generator_(&generator) {
  SGNN_CHECK(heads_ > 0 && features_ > 0, "TransformerConv: heads and features per head must be positive, got ",
             heads_, " and ", features_);
  SGNN_CHECK(options.attention_dropout >= 0.0f && options.attention_dropout < 1.0f,
             "TransformerConv: attention dropout must be in [0, 1), got ", options.attention_dropout);
  query_ = register_module("query", std::make_shared<Linear>(in_features, heads_ * features_, generator));
  key_ = register_module("key", std::make_shared<Linear>(in_features, heads_ * features_, generator));
  value_ = register_module("value", std::make_shared<Linear>(in_features, heads_ * features_, generator));
  if (options.root_weight) {
    skip_ = register_module("skip", std::make_shared<Linear>(in_features, output_features(), generator));
  }
}

Tensor TransformerConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, query_->weight().size(0), "TransformerConv");
  const Adjacency& adjacency = graph.adjacency_in({graph_io::Normalization::None, graph_io::SelfLoops::Remove});
  const int64_t n = adjacency.num_rows();
  SGNN_CHECK(x.size(0) == n, "TransformerConv: x has ", x.size(0), " rows, the graph has ", n, " nodes");
  const auto heads = [&](const Tensor& projected) { return ops::reshape(projected, {n, heads_, features_}); };
  const Tensor value = heads(value_->forward(x));
  // q_i · k_j / √F per edge and head: q on the destination (V), k on the
  // source (U). The scale goes on q, [N, H·F], not on the scores, [nnz, H]:
  // one pass over nodes instead of one over entries in forward and backward.
  const Tensor query = heads(ops::scale(query_->forward(x), 1.0f / std::sqrt(static_cast<float>(features_))));
  const Tensor scores = ops::gsddmm(adjacency, ops::BinaryKind::Dot, query, heads(key_->forward(x)), ops::Target::V,
                                    ops::Target::U);
  const Tensor attention = ops::dropout(ops::edge_softmax(adjacency, scores), options_.attention_dropout,
                                        is_training(), *generator_);
  const Tensor aggregated = ops::spmm(adjacency, attention, value);  // [N, H, F]
  const Tensor combined = options_.concat ? ops::reshape(aggregated, {n, heads_ * features_}) : ops::mean(aggregated, 1);
  return skip_ ? ops::add(combined, skip_->forward(x)) : combined;
}

}  // namespace sgnn::training
