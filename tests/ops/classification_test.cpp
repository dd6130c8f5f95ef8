#include <doctest/doctest.h>

#include "ops/classification.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;

TEST_CASE("confusion_matrix counts (true, predicted) pairs over the selected rows; ties go to the smaller class") {
  const Tensor logits = Tensor::from_vector<float>({0.9f, 0.1f, 0.0f,    // row 0: predicted 0
                                                    0.2f, 0.2f, 0.1f,    // row 1: tie -> 0
                                                    0.0f, 1.0f, 3.0f,    // row 2: predicted 2
                                                    -1.0f, 5.0f, 5.0f},  // row 3: tie -> 1
                                                   {4, 3});
  const Tensor labels = Tensor::from_vector<int32_t>({0, 1, 2, 2}, {4});
  const Tensor all = ops::confusion_matrix(logits, labels, Tensor(), 3);
  CHECK(all.shape() == Shape{3, 3});
  CHECK(all.device().is_cpu());
  CHECK(all.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 1, 0, 0, 0, 1, 1});
  const Tensor some = ops::confusion_matrix(logits, labels, Tensor::from_vector<int32_t>({3, 3, 0}, {3}), 3);
  CHECK(some.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 0, 0, 0, 0, 2, 0});
}

TEST_CASE("confusion_matrix refuses bad arguments") {
  const Tensor logits = Tensor::zeros({2, 3});
  const Tensor labels = Tensor::from_vector<int32_t>({0, 2}, {2});
  CHECK_THROWS_AS(ops::confusion_matrix(logits, labels, Tensor(), 4), InvalidArgument);  // C differs
  CHECK_THROWS_AS(ops::confusion_matrix(logits, Tensor::from_vector<int32_t>({0, 3}, {2}), Tensor(), 3),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::confusion_matrix(logits, labels, Tensor::from_vector<int32_t>({2}, {1}), 3),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::confusion_matrix(logits, Tensor::from_vector<int32_t>({0}, {1}), Tensor(), 3),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::confusion_matrix(logits, labels, Tensor::from_vector<int64_t>({0}, {1}), 3),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::confusion_matrix(Tensor::zeros({2, 3}, DType::Int32), labels, Tensor(), 3), InvalidArgument);
}
