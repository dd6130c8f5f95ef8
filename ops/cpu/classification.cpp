#include <algorithm>

#include "ops/classification_backend.hpp"
#include "ops/classification_math.hpp"

namespace sgnn::ops {

int64_t confusion_counts(Cpu, const Tensor& logits, const Tensor& labels, const Tensor& index, Tensor& counts) {
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  const int64_t selected = index.defined() ? index.numel() : rows;
  const int32_t* label = labels.data<int32_t>();
  const int32_t* rows_selected = index.defined() ? index.data<int32_t>() : nullptr;
  int64_t* count = counts.data<int64_t>();
  std::fill_n(count, classes * classes, int64_t{0});
  int64_t invalid = 0;
  for (int64_t e = 0; e < selected; ++e) {
    const int64_t r = rows_selected != nullptr ? rows_selected[e] : e;
    if (r < 0 || r >= rows || label[r] < 0 || label[r] >= classes) {
      ++invalid;
      continue;
    }
    const int64_t predicted = visit_floating(logits.dtype(), [&](auto element) {
      using T = decltype(element);
      return predicted_class(logits.data<T>() + r * classes, classes);
    });
    ++count[label[r] * classes + predicted];
  }
  return invalid;
}

}  // namespace sgnn::ops
