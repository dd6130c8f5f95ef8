// Backend entry points of ops/classification.hpp (see ops/backend.hpp).
#pragma once

#include <cstdint>

#include "ops/backend.hpp"

namespace sgnn::ops {

// Fills the host int64 tensor `counts` [C, C] (zeroed by the callee) and
// returns how many selected rows had an index or label out of range (those
// are not counted).
int64_t confusion_counts(Cpu, const Tensor& logits, const Tensor& labels, const Tensor& index, Tensor& counts);
int64_t confusion_counts(Cuda, const Tensor& logits, const Tensor& labels, const Tensor& index, Tensor& counts);

}  // namespace sgnn::ops
