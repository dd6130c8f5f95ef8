// Finds NaN and ±Inf in a tensor: the building block of the numerics check
// mode (training/numerics_check.hpp) and of the always-on loss check.
//
// Float32 and bfloat16 tensors of any shape on the CPU or a CUDA device; other dtypes hold
// no NaN and report none. On CUDA: one reduction kernel and a 16-byte read
// back, which waits for the library's stream (so: never inside a CUDA Graph
// capture). On the CPU: one OpenMP loop.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tensor.hpp"

namespace sgnn::ops {

struct NonfiniteReport {
  int64_t count = 0;         // elements that are NaN or ±Inf
  int64_t first_index = -1;  // flat index of the first of them; -1 when count is 0
  float first_value = 0.0f;  // its value (NaN, inf or -inf)
  bool all_finite() const { return count == 0; }
};

NonfiniteReport find_nonfinite(const Tensor& x);

// Throws NumericalError "<what>: k of n values are NaN or Inf (the first,
// at flat index i of shape [..], is nan)" when x holds any.
void require_finite(const Tensor& x, std::string_view what);

}  // namespace sgnn::ops
