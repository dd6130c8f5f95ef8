// Parameter initialisation from the library's Philox generator, so the same
// seed gives the same initial weights on every machine and device.
#pragma once

#include <cstdint>

#include "core/generator.hpp"
#include "core/tensor.hpp"

namespace sgnn::training {

// Glorot & Bengio (2010) uniform: U(-b, b) with b = sqrt(6 / (fan_in + fan_out)).
// Returns a host float32 tensor of `shape`; draws one stream of numel values
// from `generator`. fan_in, fan_out > 0, else InvalidArgument.
Tensor glorot_uniform(const Shape& shape, int64_t fan_in, int64_t fan_out, Generator& generator);

// Uniform U(low, high) from one stream of `generator` (host float32).
Tensor uniform(const Shape& shape, float low, float high, Generator& generator);

}  // namespace sgnn::training
