// Classification losses, differentiable in their first argument.
//
// Arguments: log_probabilities / logits [N, C] float32 or bfloat16 (read as
// float; the loss is computed in float and is float32 whatever the input's
// dtype, its gradient computed in float and rounded once to the input's
// dtype); labels [N] int32, in
// [0, C) for every selected row (other rows are not read, so unlabeled nodes
// may carry −1); index int32 [M] with values in [0, N): the rows the loss
// averages over (the training split), undefined = all N rows. A row listed
// twice counts twice. Result: shape [] (one element), the mean over the M
// selected rows.
//
// Bad shapes, dtypes, mixed devices or M = 0 -> InvalidArgument. Label or
// index values out of range: InvalidArgument on the CPU. On CUDA the values
// are not inspected by the host (that would synchronise every training step):
// such a row makes the loss NaN and gets no gradient, so the fault shows at
// the next .item() and nothing is read out of bounds.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// −mean_r log_probabilities[r, labels[r]]
Tensor nll_loss(const Tensor& log_probabilities, const Tensor& labels, const Tensor& index = Tensor());

// nll_loss(log_softmax(logits)) as one op: one forward, one backward
// (gradient softmax − onehot), no [N, C] intermediate kept.
Tensor cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor& index = Tensor());

}  // namespace sgnn::ops
