// Backend entry points of ops/optimizer_step.hpp (see ops/backend.hpp): one
// fused pass over the elements per step. Scalars are prepared by the caller.
#pragma once

#include <vector>

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

// `deferred`, when not null, replaces scalars.step_size and
// bias_correction2_sqrt and is read when the update runs (captured steps).
void adam_update(Cpu, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& scalars, const AdamBiasCorrection* deferred);
void adam_update(Cuda, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& scalars, const AdamBiasCorrection* deferred);

// One tensor of a multi-tensor Adam update (checked by the caller).
struct AdamTensorArguments {
  float* parameter;
  const float* gradient;
  float* first_moment;
  float* second_moment;
  int64_t count;
  AdamScalars scalars;
  const AdamBiasCorrection* deferred;  // see adam_update
  bfloat16* compute_copy;              // null, or receives the updated parameter rounded (AdamUpdate)
};

void adam_update_many(Cpu, Device device, const std::vector<AdamTensorArguments>& tensors);
void adam_update_many(Cuda, Device device, const std::vector<AdamTensorArguments>& tensors);

}  // namespace sgnn::ops
