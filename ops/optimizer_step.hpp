// One optimizer update of one parameter tensor, in place (not differentiable).
// parameter, gradient and the state tensors: float32, same shape and device,
// else InvalidArgument. Formulas are PyTorch's (torch.optim.SGD / Adam / AdamW).
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::ops {

struct SgdHyperparameters {
  float learning_rate;
  float momentum = 0;
  float weight_decay = 0;
  bool nesterov = false;
};

// d = g + wd·p; with momentum: buf = momentum·buf + d (buf = d on the first
// step, when momentum_buffer is undefined: it is then allocated), d = nesterov
// ? d + momentum·buf : buf; p −= lr·d. momentum_buffer is untouched when
// momentum is 0. Negative rates, nesterov without momentum -> InvalidArgument.
void sgd_step(Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer, const SgdHyperparameters&);

struct AdamHyperparameters {
  float learning_rate = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f, weight_decay = 0;
  bool decoupled_weight_decay = false;  // true: AdamW
};

// Adam: g += wd·p (L2); AdamW: p ·= 1 − lr·wd (decoupled). Then
// m = β1·m + (1−β1)·g, v = β2·v + (1−β2)·g², p −= lr/(1−β1^t) · m / (√v/√(1−β2^t) + ε).
// Undefined moments are allocated as zeros. step is 1-based (< 1 or betas
// outside [0,1) -> InvalidArgument).
void adam_step(Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
               int64_t step, const AdamHyperparameters&);

// Adam's two step-dependent scalars, computed exactly as adam_step does
// (in double, then rounded to float): lr / (1 − β1^t) and √(1 − β2^t).
struct AdamBiasCorrection {
  float step_size;
  float bias_correction2_sqrt;
};
AdamBiasCorrection adam_bias_correction(int64_t step, const AdamHyperparameters&);

// adam_step whose step-dependent scalars are read from `bias_correction`
// when the update runs (device memory of the parameter's device; host memory
// on the CPU): a captured training step is replayed with a new step count
// each time. Same checks as adam_step; a null pointer -> InvalidArgument.
// Bit-identical to adam_step(step) when *bias_correction ==
// adam_bias_correction(step, hyper).
void adam_step_deferred(Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                        const AdamBiasCorrection* bias_correction, const AdamHyperparameters&);

// One Adam update of one tensor inside adam_step_many. The pointers must stay
// valid for the call; bias_correction, when set, is read as in
// adam_step_deferred (and `step` is then ignored). compute_copy, when set, is
// the parameter's bfloat16 copy (same shape and device): the same pass writes
// the updated parameter rounded to it (mixed-precision training's weight
// copies, refreshed without a pass of their own).
struct AdamUpdate {
  Tensor* parameter = nullptr;
  const Tensor* gradient = nullptr;
  Tensor* first_moment = nullptr;
  Tensor* second_moment = nullptr;
  AdamHyperparameters hyper;
  int64_t step = 0;
  const AdamBiasCorrection* bias_correction = nullptr;
  Tensor* compute_copy = nullptr;
};

// adam_step / adam_step_deferred of every entry, bit for bit, with one
// kernel launch per up to 32 tensors on CUDA (the optimizer's per-parameter
// launches dominate small models). All entries on one device, else
// InvalidArgument; each entry is checked as its single-tensor form (nothing
// is updated when any check fails).
void adam_step_many(const std::vector<AdamUpdate>& updates);

}  // namespace sgnn::ops
