#include "training/gcn_conv.hpp"

#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "training/init.hpp"
#include "training/linear.hpp"

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
  const Tensor y = aggregates_first() ? ops::matmul(graph.aggregate(x), weight_)
                                      : graph.aggregate(ops::matmul(x, weight_));
  return bias_.defined() ? ops::add(y, bias_) : y;
}

}  // namespace sgnn::training
