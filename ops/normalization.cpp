#include "ops/normalization.hpp"

#include <cmath>

#include "core/autograd.hpp"
#include "ops/normalization_backend.hpp"

namespace sgnn::ops {

namespace {

void check_affine(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t features, const char* op) {
  SGNN_CHECK(weight.defined() == bias.defined(), op,
             ": arguments 'weight' and 'bias' must both be given (affine) or both be undefined");
  if (!weight.defined()) return;
  for (const auto& [parameter, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    check_dtype(*parameter, DType::Float32, op, name);
    check_same_device(x, *parameter, op);
    SGNN_CHECK(parameter->shape() == Shape{features}, op, ": argument '", name, "' must have shape [", features,
               "] for x of shape ", shape_str(x.shape()), ", got ", shape_str(parameter->shape()));
  }
}

void check_eps(float eps, const char* op) {
  SGNN_CHECK(std::isfinite(eps) && eps > 0.0f, op, ": argument 'eps' must be positive and finite, got ", eps);
}

void check_running(const Tensor& x, const RunningStatistics& running, bool training) {
  const int64_t channels = x.size(1);
  SGNN_CHECK(running.mean.defined() == running.variance.defined(),
             "batch_norm: running mean and variance must both be given or both be undefined");
  SGNN_CHECK(training || running.mean.defined(),
             "batch_norm: evaluation (training false) normalises with the running mean and variance, which are undefined");
  if (!running.mean.defined()) {
    SGNN_CHECK(!running.batches.defined(), "batch_norm: a batch count without running mean and variance");
    return;
  }
  for (const auto& [statistic, name] :
       {std::pair{&running.mean, "running mean"}, std::pair{&running.variance, "running variance"}}) {
    check_dtype(*statistic, DType::Float32, "batch_norm", name);
    check_same_device(x, *statistic, "batch_norm");
    SGNN_CHECK(statistic->shape() == Shape{channels}, "batch_norm: argument '", name, "' must have shape [", channels,
               "] for x of shape ", shape_str(x.shape()), ", got ", shape_str(statistic->shape()));
  }
  if (running.batches.defined()) {
    check_dtype(running.batches, DType::Int64, "batch_norm", "running batches");
    check_same_device(x, running.batches, "batch_norm");
    SGNN_CHECK(running.batches.numel() == 1, "batch_norm: argument 'running batches' must have one element, got shape ",
               shape_str(running.batches.shape()));
  }
}

// The weight and bias gradients (rows 1 and 0 of the sums), float32 [features].
void parameter_gradients(const Tensor& sums, int64_t features, const autograd::NeedsGrad& needs,
                         std::vector<Tensor>& grads) {
  if (needs[1]) grads[1] = sums.narrow_rows(1, 2).view({features});
  if (needs[2]) grads[2] = sums.narrow_rows(0, 1).view({features});
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const RunningStatistics& running,
                  bool training, float momentum, float eps) {
  check_floating(x, "batch_norm", "x");
  SGNN_CHECK(x.dim() == 2, "batch_norm: argument 'x' must be [N, C], got shape ", shape_str(x.shape()));
  const int64_t rows = x.size(0);
  const int64_t channels = x.size(1);
  check_affine(x, weight, bias, channels, "batch_norm");
  check_running(x, running, training);
  check_eps(eps, "batch_norm");
  SGNN_CHECK(momentum >= 0.0f && momentum <= 1.0f, "batch_norm: argument 'momentum' must be in [0, 1], got ", momentum);
  SGNN_CHECK(!training || rows >= 2, "batch_norm: training needs at least 2 rows per channel (x of shape ",
             shape_str(x.shape()), " has ", rows, "): one value has no variance");

  Tensor mean = Tensor::empty({channels}, DType::Float32, x.device());
  Tensor inverse_std = Tensor::empty({channels}, DType::Float32, x.device());
  SGNN_DISPATCH(x.device(), batch_norm_statistics, x, training, momentum, eps, running.mean, running.variance,
                running.batches, mean, inverse_std);
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), batch_norm_forward, x, mean, inverse_std, weight, bias, y);
  if (autograd::needs_recording({x, weight, bias})) {
    autograd::record("batch_norm", {x, weight, bias}, y,
                     [training, saved = x.detach(), mean, inverse_std, w = weight.detach()](
                         const Tensor& grad, const autograd::NeedsGrad& needs) {
                       const int64_t features = saved.size(1);
                       std::vector<Tensor> grads(3);
                       Tensor sums;
                       if ((training && needs[0]) || needs[1] || needs[2]) {
                         sums = Tensor::empty({2, features}, DType::Float32, saved.device());
                         SGNN_DISPATCH(saved.device(), normalization_sums, grad, saved, mean, inverse_std, false, sums);
                       }
                       if (needs[0]) {
                         grads[0] = Tensor::empty_like(saved);
                         SGNN_DISPATCH(saved.device(), batch_norm_backward, training, grad, saved, mean, inverse_std, w,
                                       sums, grads[0]);
                       }
                       parameter_gradients(sums, features, needs, grads);
                       return grads;
                     });
  }
  return y;
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
  check_floating(x, "layer_norm", "x");
  SGNN_CHECK(x.dim() >= 1 && x.size(-1) >= 1, "layer_norm: argument 'x' must have a last axis of at least 1 element, got shape ",
             shape_str(x.shape()));
  const int64_t features = x.size(-1);
  check_affine(x, weight, bias, features, "layer_norm");
  check_eps(eps, "layer_norm");
  const int64_t rows = x.numel() / features;
  Tensor y = Tensor::empty_like(x);
  Tensor mean = Tensor::empty({rows}, DType::Float32, x.device());
  Tensor inverse_std = Tensor::empty({rows}, DType::Float32, x.device());
  SGNN_DISPATCH(x.device(), layer_norm_forward, x, weight, bias, eps, y, mean, inverse_std);
  if (autograd::needs_recording({x, weight, bias})) {
    autograd::record("layer_norm", {x, weight, bias}, y,
                     [saved = x.detach(), mean, inverse_std, w = weight.detach(), features](
                         const Tensor& grad, const autograd::NeedsGrad& needs) {
                       std::vector<Tensor> grads(3);
                       if (needs[0]) {
                         grads[0] = Tensor::empty_like(saved);
                         SGNN_DISPATCH(saved.device(), layer_norm_backward, grad, saved, mean, inverse_std, w, grads[0]);
                       }
                       if (needs[1] || needs[2]) {
                         Tensor sums = Tensor::empty({2, features}, DType::Float32, saved.device());
                         SGNN_DISPATCH(saved.device(), normalization_sums, grad, saved, mean, inverse_std, true, sums);
                         parameter_gradients(sums, features, needs, grads);
                       }
                       return grads;
                     });
  }
  return y;
}

}  // namespace sgnn::ops
