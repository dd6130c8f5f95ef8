// Classification metrics from a confusion matrix (host int64 [C, C], entry
// (true class, predicted class), as ops::confusion_matrix returns it).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::training {

// Fraction of correct predictions (trace / total); 0 for an empty matrix.
double accuracy(const Tensor& confusion);
// Mean over classes of F1 = 2·TP / (2·TP + FP + FN). Classes that never occur
// and are never predicted (2·TP + FP + FN = 0) are left out of the mean, as in
// scikit-learn with zero_division ignored; 0 when no class counts.
double macro_f1(const Tensor& confusion);

struct SplitMetrics {
  double loss = 0;
  double accuracy = 0;
  double macro_f1 = 0;
};

// Loss (cross entropy), accuracy and macro-F1 of `logits` [N, C] on the rows
// `index` (int32, undefined = all) against `labels` [N] int32. Not
// differentiable: call under autograd::NoGradGuard.
SplitMetrics evaluate_split(const Tensor& logits, const Tensor& labels, const Tensor& index);

}  // namespace sgnn::training
