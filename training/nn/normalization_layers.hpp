// Normalisation layers over node features [N, features] (ops/normalization.hpp).
//
// BatchNorm1d (PyTorch's, on a 2-D input): in training mode it normalises
// with the statistics of the batch (N >= 2 rows) and moves its running mean
// and variance towards them (momentum; the unbiased variance); in evaluation
// mode it normalises with the running statistics. Parameters weight (ones)
// and bias (zeros) [features] when affine; buffers running_mean (zeros) and
// running_var (ones), float32 [features], and num_batches_tracked (int64 [],
// +1 per training forward), moved by to() and saved in checkpoints.
//
// LayerNorm (PyTorch's LayerNorm(features)): each row over its features;
// weight (ones) and bias (zeros) when affine; no buffers, the same in both
// modes.
//
// x: float32 or bfloat16 [N, features] on the module's device (a bfloat16 x
// is normalised in float with the float32 parameters, and stays bfloat16).
// Wrong shapes or dtypes -> InvalidArgument naming the layer.
#pragma once

#include "training/nn/layer.hpp"

namespace sgnn::training {

class BatchNorm1d : public Layer {
 public:
  // features > 0, eps > 0, momentum in [0, 1], else InvalidArgument.
  explicit BatchNorm1d(int64_t features, float eps = 1e-5f, float momentum = 0.1f, bool affine = true);
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  Tensor forward(const Tensor& x);
  const Tensor& weight() const { return weight_; }  // undefined without affine
  const Tensor& bias() const { return bias_; }
  const Tensor& running_mean() const { return running_mean_; }
  const Tensor& running_var() const { return running_var_; }
  const Tensor& num_batches_tracked() const { return num_batches_tracked_; }

 private:
  float eps_;
  float momentum_;
  Tensor weight_, bias_;
  Tensor running_mean_, running_var_, num_batches_tracked_;
};

class LayerNorm : public Layer {
 public:
  // features > 0, eps > 0, else InvalidArgument.
  explicit LayerNorm(int64_t features, float eps = 1e-5f, bool affine = true);
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  Tensor forward(const Tensor& x);
  const Tensor& weight() const { return weight_; }  // undefined without affine
  const Tensor& bias() const { return bias_; }

 private:
  int64_t features_;
  float eps_;
  Tensor weight_, bias_;
};

}  // namespace sgnn::training
