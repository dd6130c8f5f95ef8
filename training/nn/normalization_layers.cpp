#include "training/nn/normalization_layers.hpp"

#include <cmath>

#include "ops/normalization.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

namespace {

void check_sizes(const char* layer, int64_t features, float eps) {
  SGNN_CHECK(features > 0, layer, ": features must be positive, got ", features);
  SGNN_CHECK(std::isfinite(eps) && eps > 0.0f, layer, ": eps must be positive and finite, got ", eps);
}

}  // namespace

BatchNorm1d::BatchNorm1d(int64_t features, float eps, float momentum, bool affine) : eps_(eps), momentum_(momentum) {
  check_sizes("BatchNorm1d", features, eps);
  SGNN_CHECK(momentum >= 0.0f && momentum <= 1.0f, "BatchNorm1d: momentum must be in [0, 1], got ", momentum);
  running_mean_ = Tensor::zeros({features});
  running_var_ = Tensor::full({features}, 1.0);
  num_batches_tracked_ = Tensor::zeros({}, DType::Int64);
  if (affine) {
    weight_ = Tensor::full({features}, 1.0);
    bias_ = Tensor::zeros({features});
    register_parameter("weight", weight_);
    register_parameter("bias", bias_);
  }
  register_buffer("running_mean", running_mean_);
  register_buffer("running_var", running_var_);
  register_buffer("num_batches_tracked", num_batches_tracked_);
}

Tensor BatchNorm1d::forward(const GraphInput&, const Tensor& x) { return forward(x); }

Tensor BatchNorm1d::forward(const Tensor& x) {
  check_layer_input(x, running_mean_.size(0), "BatchNorm1d");
  return ops::batch_norm(x, weight_, bias_, {running_mean_, running_var_, num_batches_tracked_}, is_training(),
                         momentum_, eps_);
}

LayerNorm::LayerNorm(int64_t features, float eps, bool affine) : features_(features), eps_(eps) {
  check_sizes("LayerNorm", features, eps);
  if (affine) {
    weight_ = Tensor::full({features}, 1.0);
    bias_ = Tensor::zeros({features});
    register_parameter("weight", weight_);
    register_parameter("bias", bias_);
  }
}

Tensor LayerNorm::forward(const GraphInput&, const Tensor& x) { return forward(x); }

Tensor LayerNorm::forward(const Tensor& x) {
  check_layer_input(x, features_, "LayerNorm");
  return ops::layer_norm(x, weight_, bias_, eps_);
}

}  // namespace sgnn::training
