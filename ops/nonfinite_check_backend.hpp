// Backend entry points of ops/nonfinite_check.hpp (see ops/backend.hpp).
// x is float32 or bfloat16 and contiguous; the reports leave first_value to the caller.
#pragma once

#include "ops/backend.hpp"
#include "ops/nonfinite_check.hpp"

namespace sgnn::ops {

NonfiniteReport count_nonfinite(Cpu, const Tensor& x);
NonfiniteReport count_nonfinite(Cuda, const Tensor& x);

}  // namespace sgnn::ops
