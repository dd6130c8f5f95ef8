#include "ops/classification.hpp"

#include "ops/classification_backend.hpp"

namespace sgnn::ops {

Tensor confusion_matrix(const Tensor& logits, const Tensor& labels, const Tensor& index, int64_t num_classes) {
  constexpr const char* op = "confusion_matrix";
  check_floating(logits, op, "logits");
  check_dim(logits, 2, op, "logits");
  check_dtype(labels, DType::Int32, op, "labels");
  check_dim(labels, 1, op, "labels");
  check_same_device(logits, labels, op);
  SGNN_CHECK(num_classes > 0 && logits.size(1) == num_classes, op, ": logits ", shape_str(logits.shape()),
             " must have num_classes = ", num_classes, " columns (num_classes > 0)");
  SGNN_CHECK(labels.size(0) == logits.size(0), op, ": ", logits.size(0), " rows of logits but ", labels.size(0),
             " labels");
  if (index.defined()) {
    check_dtype(index, DType::Int32, op, "index");
    check_dim(index, 1, op, "index");
    check_same_device(logits, index, op);
  }
  Tensor counts = Tensor::empty({num_classes, num_classes}, DType::Int64);
  const int64_t invalid = SGNN_DISPATCH(logits.device(), confusion_counts, logits, labels, index, counts);
  SGNN_CHECK(invalid == 0, op, ": ", invalid, " selected rows have an index outside [0, ", logits.size(0),
             ") or a label outside [0, ", num_classes, ")");
  return counts;
}

}  // namespace sgnn::ops
