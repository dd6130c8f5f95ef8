#include "training/nn/linear.hpp"

#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "training/nn/init.hpp"

namespace sgnn::training {

void check_layer_input(const Tensor& x, int64_t expected_features, const char* layer) {
  check_defined(x, layer, "x");
  check_floating(x, layer, "x");
  check_dim(x, 2, layer, "x");
  SGNN_CHECK(x.size(1) == expected_features, layer, ": x has ", x.size(1), " features per node, the layer expects ",
             expected_features);
}

Linear::Linear(int64_t in_features, int64_t out_features, Generator& generator, bool bias)
    : weight_(glorot_uniform({in_features, out_features}, in_features, out_features, generator)) {
  register_parameter("weight", weight_);
  if (bias) {
    bias_ = Tensor::zeros({out_features});
    register_parameter("bias", bias_);
  }
}

Tensor Linear::forward(const GraphInput&, const Tensor& x) { return forward(x); }

Tensor Linear::forward(const Tensor& x) {
  const Tensor y = project(x);
  return bias_.defined() ? ops::add(y, bias_) : y;
}

Tensor Linear::project(const Tensor& x) {
  check_layer_input(x, weight_.size(0), "Linear");
  return ops::matmul_weight(x, weight_, compute_copy(weight_));
}

}  // namespace sgnn::training
