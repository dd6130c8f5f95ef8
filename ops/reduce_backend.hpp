// Backend entry points of ops/reduce.hpp (see ops/backend.hpp), also used by
// other families (bias gradients, loss means).
//
// x is viewed as [outer, extent, inner] (row-major); the reduced axis is the
// middle one. A full reduction is outer = inner = 1. Input and output are
// float32 or bfloat16 in any mix: read as float, accumulated in float (CPU:
// double), rounded once to the output's dtype.
#pragma once

#include <cstdint>

#include "ops/backend.hpp"

namespace sgnn::ops {

struct AxisLayout {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};

// out[o, i] = factor · Σ_k x[o, k, i]; out has outer·inner elements. The order
// of the additions is fixed (no atomics): results are reproducible.
void sum_axis(Cpu, const Tensor& x, AxisLayout layout, float factor, Tensor& out);
void sum_axis(Cuda, const Tensor& x, AxisLayout layout, float factor, Tensor& out);

// out[o, k, i] = factor · g[o, i]: the gradient of sum_axis.
void broadcast_axis(Cpu, const Tensor& g, AxisLayout layout, float factor, Tensor& out);
void broadcast_axis(Cuda, const Tensor& g, AxisLayout layout, float factor, Tensor& out);

}  // namespace sgnn::ops
