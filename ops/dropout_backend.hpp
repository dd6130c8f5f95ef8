// Backend entry points of ops/dropout.hpp (see ops/backend.hpp).
#pragma once

#include "core/philox.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// y[i] = stream.uniform(i) >= p ? x[i] · scale : 0. Forward (x) and backward
// (the upstream gradient) are the same function of the same stream.
void dropout_apply(Cpu, const Tensor& x, float p, float scale, PhiloxStream stream, Tensor& y);
void dropout_apply(Cuda, const Tensor& x, float p, float scale, PhiloxStream stream, Tensor& y);

}  // namespace sgnn::ops
