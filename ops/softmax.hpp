// Softmax over the last axis, differentiable, numerically stable (the row
// maximum is subtracted before exponentiating). float32 or bfloat16 (computed
// in float, the output and the gradient rounded once to x's dtype), rank >= 1,
// else InvalidArgument.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor softmax(const Tensor& x);
// log(softmax(x)) computed as x − max − log Σ exp(x − max), never log(0) of an underflow.
Tensor log_softmax(const Tensor& x);

}  // namespace sgnn::ops
