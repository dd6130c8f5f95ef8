#include "training/nn/gcn_conv.hpp"

#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "training/nn/init.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

GCNConv::GCNConv(int64_t in_features, int64_t out_features, Generator& generator, bool bias)
    : weight_(glorot_uniform({in_features, out_features}, in_features, out_features, generator)) {
  register_parameter("weight", weight_);
  if (bias) {
    bias_ = Tensor::zeros({out_features});
    register_parameter("bias", bias_);
  }
}

Tensor GCNConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, weight_.size(0), "GCNConv");
  SGNN_CHECK(x.size(0) == graph.graph().num_cols(), "GCNConv: x has ", x.size(0), " rows, the graph has ",
             graph.graph().num_cols(), " nodes");
  return forward_with([&graph](const Tensor& rows) { return graph.aggregate(rows); }, x);
}

Tensor GCNConv::forward_with(const std::function<Tensor(const Tensor&)>& aggregate, const Tensor& x) {
  check_layer_input(x, weight_.size(0), "GCNConv");
  const Tensor& copy = compute_copy(weight_);
  const Tensor y = aggregates_first() ? ops::matmul_weight(aggregate(x), weight_, copy)
                                      : aggregate(ops::matmul_weight(x, weight_, copy));
  return bias_.defined() ? ops::add(y, bias_) : y;
}

}  // namespace sgnn::training
