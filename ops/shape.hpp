// Shape manipulation, differentiable.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::ops {

// The same elements with a new shape (one extent may be -1). Shares storage
// with x (no copy); the gradient is reshaped back. Element count mismatch ->
// InvalidArgument.
Tensor reshape(const Tensor& x, const Shape& shape);

// Joins float32 (or bfloat16) tensors of one dtype along `axis` (negative counts from the end). All must
// have the same rank, device and extents except along `axis`; at least one
// tensor. Anything else -> InvalidArgument. Fresh output; the gradient is
// split back into the inputs.
Tensor concat(const std::vector<Tensor>& xs, int64_t axis);

}  // namespace sgnn::ops
