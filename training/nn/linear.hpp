// Linear: y = x·W + b with W [in, out] (Glorot uniform) and b [out] (zeros),
// in x's precision (bfloat16 x: W's bfloat16 copy, ops::matmul_weight).
#pragma once

#include "core/generator.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

class Linear : public Layer {
 public:
  // in, out > 0 (InvalidArgument otherwise); draws W from `generator`.
  Linear(int64_t in_features, int64_t out_features, Generator& generator, bool bias = true);
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  Tensor forward(const Tensor& x);
  // x·W without the bias (a layer that moves a linear map before a linear
  // aggregation adds the bias after it, as GINConv does).
  Tensor project(const Tensor& x);
  const Tensor& weight() const { return weight_; }
  const Tensor& bias() const { return bias_; }  // undefined without bias

 private:
  Tensor weight_;
  Tensor bias_;
};

// Checks x is float32 or bfloat16 [N, expected_features] (names the layer on failure).
void check_layer_input(const Tensor& x, int64_t expected_features, const char* layer);

}  // namespace sgnn::training
