// Backend entry points of ops/cast.hpp (see ops/backend.hpp).
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

// out[i] = x[i] converted to out's dtype (float32 or bfloat16 each; same numel, same device).
void cast_copy(Cpu, const Tensor& x, Tensor& out);
void cast_copy(Cuda, const Tensor& x, Tensor& out);

}  // namespace sgnn::ops
