// Conversion between float32 and bfloat16 (mixed-precision training).
//
//   cast(x, dtype)   x float32 or bfloat16 -> the same values as `dtype`,
//                    same shape and device. float32 -> bfloat16 rounds to
//                    nearest, ties to even (core/bfloat16.hpp); bfloat16 ->
//                    float32 is exact. dtype == x.dtype(): returns x itself.
//                    Differentiable: the gradient of a cast is the upstream
//                    gradient cast back to x's dtype.
//   cast_into(destination, source)
//                    writes source converted to destination's dtype into
//                    destination (same shape and device), in place, not
//                    recorded: refreshes the bfloat16 copy of a float32
//                    master weight.
//
// A dtype other than float32 or bfloat16, shapes or devices that differ ->
// InvalidArgument.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor cast(const Tensor& x, DType dtype);
void cast_into(Tensor& destination, const Tensor& source);

}  // namespace sgnn::ops
