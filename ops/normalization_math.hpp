// The normalisation formulas, shared by the CPU and CUDA backends so both
// compute exactly the same function on each element.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace sgnn::ops {

// An affine parameter, or its identity when the normalisation has none (null).
SGNN_HOST_DEVICE float weight_at(const float* weight, int64_t index) { return weight != nullptr ? weight[index] : 1.0f; }
SGNN_HOST_DEVICE float bias_at(const float* bias, int64_t index) { return bias != nullptr ? bias[index] : 0.0f; }

SGNN_HOST_DEVICE float inverse_std(float variance, float eps) { return 1.0f / sqrtf(variance + eps); }

// (x − mean) · inverse_std · weight + bias
SGNN_HOST_DEVICE float normalized(float x, float mean, float inverse_std, float weight, float bias) {
  return (x - mean) * inverse_std * weight + bias;
}

// The exponential moving average of the running statistics (PyTorch's).
SGNN_HOST_DEVICE float running_update(float running, float batch, float momentum) {
  return (1.0f - momentum) * running + momentum * batch;
}

// The input gradient of a normalisation whose statistics depend on the
// input: scale · (grad − mean(grad) − x̂ · mean(grad · x̂)), the means over the
// normalised group. Batch norm: scale = weight · inverse_std, grad the
// upstream gradient, means over rows (0 and 0 in evaluation, where the
// statistics are constants). Layer norm: scale = inverse_std, grad = weight ·
// upstream, means over the row.
SGNN_HOST_DEVICE float centered_gradient(float scale, float grad, float normalized_x, float mean_grad,
                                         float mean_grad_normalized) {
  return scale * (grad - mean_grad - normalized_x * mean_grad_normalized);
}

}  // namespace sgnn::ops
