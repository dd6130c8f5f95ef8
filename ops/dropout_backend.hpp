// Backend entry points of ops/dropout.hpp (see ops/backend.hpp).
#pragma once

#include "core/generator.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// y[i] = s.uniform16(i) >= p ? x[i] · scale : 0 with s = draw.resolve() (the
// offset base, when set, is read when the work runs). Forward (x) and
// backward (the upstream gradient) are the same function of the same draw.
void dropout_apply(Cpu, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y);
void dropout_apply(Cuda, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y);

}  // namespace sgnn::ops
