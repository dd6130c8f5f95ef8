// The per-element optimizer updates, shared by the CPU and CUDA backends so
// both apply exactly the same formula (PyTorch's, see ops/optimizer_step.hpp).
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "ops/optimizer_step_backend.hpp"

namespace sgnn::ops {

// Updates p (and buf when momentum > 0) for one element.
SGNN_HOST_DEVICE void sgd_element(float& p, float g, float* buf, float learning_rate, float momentum,
                                  float weight_decay, bool nesterov, bool first_step) {
  float d = g + weight_decay * p;
  if (momentum > 0.0f) {
    const float b = first_step ? d : momentum * *buf + d;
    *buf = b;
    d = nesterov ? d + momentum * b : b;
  }
  p -= learning_rate * d;
}

// The scalars with the step-dependent ones taken from `deferred` when set.
SGNN_HOST_DEVICE AdamScalars resolve_adam_scalars(AdamScalars scalars, const AdamBiasCorrection* deferred) {
  if (deferred != nullptr) {
    scalars.step_size = deferred->step_size;
    scalars.bias_correction2_sqrt = deferred->bias_correction2_sqrt;
  }
  return scalars;
}

SGNN_HOST_DEVICE void adam_element(float& p, float g, float& m, float& v, const AdamScalars& s) {
  if (s.decoupled_weight_decay) {
    p *= 1.0f - s.learning_rate * s.weight_decay;
  } else {
    g += s.weight_decay * p;
  }
  m = s.beta1 * m + (1.0f - s.beta1) * g;
  v = s.beta2 * v + (1.0f - s.beta2) * g * g;
  const float denominator = sqrtf(v) / s.bias_correction2_sqrt + s.epsilon;
  p -= s.step_size * m / denominator;
}

}  // namespace sgnn::ops
