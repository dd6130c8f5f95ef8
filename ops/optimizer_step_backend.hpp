// Backend entry points of ops/optimizer_step.hpp (see ops/backend.hpp): one
// fused pass over the elements per step. Scalars are prepared by the caller.
#pragma once

#include "ops/backend.hpp"
#include "ops/optimizer_step.hpp"

namespace sgnn::ops {

// `first_step`: the momentum buffer is written as d instead of read. With
// momentum 0, `momentum_buffer` is not touched (may be undefined).
void sgd_update(Cpu, Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer,
                const SgdHyperparameters& hyper, bool first_step);
void sgd_update(Cuda, Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer,
                const SgdHyperparameters& hyper, bool first_step);

struct AdamScalars {
  float learning_rate;
  float beta1, beta2, epsilon, weight_decay;
  bool decoupled_weight_decay;
  float step_size;               // lr / (1 − β1^t)
  float bias_correction2_sqrt;   // √(1 − β2^t)
};

void adam_update(Cpu, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& scalars);
void adam_update(Cuda, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& scalars);

}  // namespace sgnn::ops
