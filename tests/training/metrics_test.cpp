#include <doctest/doctest.h>

#include "training/metrics.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {
Tensor confusion(const std::vector<int64_t>& counts, int64_t classes) {
  return Tensor::from_vector(counts, {classes, classes});
}
}  // namespace

TEST_CASE("accuracy is the trace over the total") {
  CHECK(accuracy(confusion({3, 1, 0, 4}, 2)) == doctest::Approx(7.0 / 8.0));
  CHECK(accuracy(confusion({0, 0, 0, 0}, 2)) == 0.0);
}

TEST_CASE("macro_f1 averages per-class F1 and skips classes that never occur nor are predicted") {
  // class 0: TP 3, FN 1, FP 2 -> F1 = 6/9; class 1: TP 4, FN 2, FP 1 -> 8/11; class 2 absent.
  const Tensor c = confusion({3, 1, 0, 2, 4, 0, 0, 0, 0}, 3);
  CHECK(macro_f1(c) == doctest::Approx((6.0 / 9.0 + 8.0 / 11.0) / 2.0));
  // A class that occurs but is never predicted counts with F1 = 0.
  const Tensor missed = confusion({2, 0, 1, 0}, 2);
  CHECK(macro_f1(missed) == doctest::Approx((4.0 / 5.0 + 0.0) / 2.0));
}

TEST_CASE("metrics reject a non-square or non-int64 confusion matrix") {
  CHECK_THROWS_WITH_AS(accuracy(Tensor::zeros({2, 3}, DType::Int64)), doctest::Contains("square"), InvalidArgument);
  CHECK_THROWS_AS(macro_f1(Tensor::zeros({2, 2})), InvalidArgument);
}
