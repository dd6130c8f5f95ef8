#include "training/metrics.hpp"

#include "ops/classification.hpp"
#include "ops/loss.hpp"

namespace sgnn::training {

namespace {

void check_confusion(const Tensor& confusion, const char* op) {
  check_dtype(confusion, DType::Int64, op, "confusion");
  check_dim(confusion, 2, op, "confusion");
  SGNN_CHECK(confusion.size(0) == confusion.size(1), op, ": confusion matrix must be square, got ",
             shape_str(confusion.shape()));
  SGNN_CHECK(confusion.device().is_cpu(), op, ": confusion matrix must be on the host");
}

}  // namespace

double accuracy(const Tensor& confusion) {
  check_confusion(confusion, "accuracy");
  const int64_t classes = confusion.size(0);
  const int64_t* counts = confusion.data<int64_t>();
  int64_t correct = 0;
  int64_t total = 0;
  for (int64_t t = 0; t < classes; ++t) {
    for (int64_t p = 0; p < classes; ++p) {
      total += counts[t * classes + p];
      if (t == p) correct += counts[t * classes + p];
    }
  }
  return total == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(total);
}

double macro_f1(const Tensor& confusion) {
  check_confusion(confusion, "macro_f1");
  const int64_t classes = confusion.size(0);
  const int64_t* counts = confusion.data<int64_t>();
  double sum = 0;
  int64_t counted = 0;
  for (int64_t c = 0; c < classes; ++c) {
    int64_t row = 0;     // TP + FN
    int64_t column = 0;  // TP + FP
    for (int64_t k = 0; k < classes; ++k) {
      row += counts[c * classes + k];
      column += counts[k * classes + c];
    }
    const int64_t true_positive = counts[c * classes + c];
    const int64_t denominator = row + column;  // 2·TP + FP + FN
    if (denominator == 0) continue;
    sum += 2.0 * static_cast<double>(true_positive) / static_cast<double>(denominator);
    ++counted;
  }
  return counted == 0 ? 0.0 : sum / static_cast<double>(counted);
}

SplitMetrics evaluate_split(const Tensor& logits, const Tensor& labels, const Tensor& index) {
  check_dim(logits, 2, "evaluate_split", "logits");
  const Tensor confusion = ops::confusion_matrix(logits, labels, index, logits.size(1));
  SplitMetrics metrics;
  metrics.loss = ops::cross_entropy(logits, labels, index).item();
  metrics.accuracy = accuracy(confusion);
  metrics.macro_f1 = macro_f1(confusion);
  return metrics;
}

}  // namespace sgnn::training
