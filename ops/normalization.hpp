// Batch and layer normalisation, differentiable, CPU or CUDA.
//
// x is float32 or bfloat16; weight and bias are float32 [C] (or [D]), both
// given (affine) or both undefined (weight 1, bias 0); statistics are
// computed and kept in float32 (CPU: float64), y has x's shape and dtype,
// rounded once. Gradients: x's in x's dtype, weight's and bias's float32
// (sums over rows in float, deterministic: a fixed order, no atomics).
//
// Bad shapes, dtypes, devices or parameters -> InvalidArgument naming the
// op, the argument and the shapes.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// The running statistics of a batch normalisation (buffers of a BatchNorm
// layer, not differentiable): float32 [C] mean and variance, and an int64
// count of training batches of shape [] (may be undefined). Handles: the op
// writes their storage in place.
struct RunningStatistics {
  Tensor mean;
  Tensor variance;
  Tensor batches;
};

// Batch normalisation over the rows of x [N, C] (PyTorch's BatchNorm1d on a
// 2-D input): y = (x − mean) / √(var + eps) · weight + bias per channel.
// Training: mean and the biased variance of the batch (over its N rows,
// N >= 2 as PyTorch requires); when `running` is given its mean and
// variance move towards the batch's, with the unbiased variance:
//   running = (1 − momentum) · running + momentum · batch,
// and running.batches grows by 1. The gradient of x includes the batch
// statistics' dependence on x. Evaluation (training false): the running
// mean and variance normalise (required), nothing is updated, any N (0
// included), and x's gradient is grad · weight / √(running_var + eps).
// momentum in [0, 1], eps > 0. CUDA: channels along 32 lanes (C < 32 leaves
// lanes idle); rows split over blocks, partial statistics merged in a
// fixed order (Welford/Chan).
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const RunningStatistics& running,
                  bool training, float momentum = 0.1f, float eps = 1e-5f);

// Layer normalisation over the last axis of x [..., D] (PyTorch's
// LayerNorm(D)): y = (x − mean) / √(var + eps) · weight + bias, with the mean
// and the biased variance of each row's D values; weight and bias [D].
// D >= 1, eps > 0; rows may be 0. CUDA: a warp per row (the row re-read from
// cache), weight and bias gradients summed over rows as batch_norm's.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps = 1e-5f);

}  // namespace sgnn::ops
