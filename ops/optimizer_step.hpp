// One optimizer update of one parameter tensor, in place (not differentiable).
// parameter, gradient and the state tensors: float32, same shape and device,
// else InvalidArgument. Formulas are PyTorch's (torch.optim.SGD / Adam / AdamW).
#pragma once

#include <cstdint>

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

}  // namespace sgnn::ops
