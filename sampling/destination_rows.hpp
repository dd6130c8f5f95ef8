// destination_rows(x, count): the first `count` rows of x, differentiable —
// a block's destination features, x_destination = x_source[:count] (the
// destinations are the first sources, sampling/block.hpp). The forward is a
// view (no copy); the gradient is the upstream gradient followed by zero
// rows (ops::concat). x float32 or bfloat16 with at least `count` rows,
// else InvalidArgument.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::sampling {

Tensor destination_rows(const Tensor& x, int64_t count);

}  // namespace sgnn::sampling
