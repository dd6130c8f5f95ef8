// Classification metrics (not differentiable).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::ops {

// logits [N, C] float32 or bfloat16 with C = num_classes, labels [N] int32, index int32
// [M] (undefined = all rows), same device -> host int64 tensor [C, C] whose
// entry (t, p) counts selected rows with label t predicted as p. Prediction =
// argmax of the row, ties -> the smallest class; a row with NaN counts as
// class 0 unless a later entry is larger. Label or index out of range, bad
// shapes or dtypes -> InvalidArgument (on CUDA too: the result is read back
// to the host anyway).
Tensor confusion_matrix(const Tensor& logits, const Tensor& labels, const Tensor& index, int64_t num_classes);

}  // namespace sgnn::ops
