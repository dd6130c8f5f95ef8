#include "skip_conv.hpp"

#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "training/nn/init.hpp"
#include "training/nn/linear.hpp"

namespace skip_gcn {

using namespace sgnn;

// [extending:layer]
SkipGCNConv::SkipGCNConv(int64_t in_features, int64_t out_features, Generator& generator)
    : weight_(training::glorot_uniform({in_features, out_features}, in_features, out_features, generator)),
      root_weight_(training::glorot_uniform({in_features, out_features}, in_features, out_features, generator)),
      bias_(Tensor::zeros({out_features})) {
  // Registered parameters are what the optimizer updates, moves between
  // devices and saves in checkpoints, under these names.
  register_parameter("weight", weight_);
  register_parameter("root_weight", root_weight_);
  register_parameter("bias", bias_);
}

Tensor SkipGCNConv::forward(const training::GraphInput& graph, const Tensor& x) {
  training::check_layer_input(x, weight_.size(0), "SkipGCNConv");
  // Every op records its backward: the layer needs no gradient code.
  const Tensor neighbours = graph.aggregate(ops::matmul_weight(x, weight_, compute_copy(weight_)));
  const Tensor own = ops::matmul_weight(x, root_weight_, compute_copy(root_weight_));
  return ops::add(ops::add(neighbours, own), bias_);
}
// [extending:end]

}  // namespace skip_gcn
