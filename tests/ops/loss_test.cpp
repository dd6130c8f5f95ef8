#include <doctest/doctest.h>

#include <cmath>

#include "ops/loss.hpp"
#include "ops/softmax.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Mean over the selected rows of −log softmax(x)[r, label] (cross entropy)
// or −x[r, label] (nll), in float64.
double reference(const Tensor& x, const Tensor& labels, const std::vector<int32_t>& rows, bool cross_entropy) {
  const int64_t classes = x.size(1);
  const std::vector<double> v = to_double(x);
  const std::vector<int32_t> label = labels.to_vector<int32_t>();
  double total = 0.0;
  for (int32_t r : rows) {
    const double* row = v.data() + static_cast<std::size_t>(r * classes);
    const double target = row[label[static_cast<std::size_t>(r)]];
    if (!cross_entropy) {
      total -= target;
      continue;
    }
    double maximum = row[0];
    for (int64_t c = 1; c < classes; ++c) maximum = std::max(maximum, row[c]);
    double sum = 0.0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(row[c] - maximum);
    total += maximum + std::log(sum) - target;
  }
  return total / static_cast<double>(rows.size());
}

std::vector<int32_t> all_rows(int64_t n) {
  std::vector<int32_t> rows(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int32_t>(i);
  return rows;
}

}  // namespace

TEST_CASE("nll_loss and cross_entropy match float64 references, over all rows and over an index") {
  for (const Shape& shape : {Shape{1, 1}, Shape{1, 3}, Shape{9, 7}, Shape{50, 40}}) {
    const Tensor x = random_tensor(shape, 1, -4.0, 4.0);
    const Tensor labels = random_indices({shape[0]}, 2, 0, shape[1], DType::Int32);
    CHECK(ops::cross_entropy(x, labels).shape() == Shape{});
    CHECK(relative_error(ops::cross_entropy(x, labels), {reference(x, labels, all_rows(shape[0]), true)}) < 1e-6);
    CHECK(relative_error(ops::nll_loss(x, labels), {reference(x, labels, all_rows(shape[0]), false)}) < 1e-6);
    const std::vector<int32_t> rows{0, static_cast<int32_t>(shape[0] - 1), 0};  // a repeated row counts twice
    const Tensor index = Tensor::from_vector(rows, {3});
    CHECK(relative_error(ops::cross_entropy(x, labels, index), {reference(x, labels, rows, true)}) < 1e-6);
    CHECK(relative_error(ops::nll_loss(x, labels, index), {reference(x, labels, rows, false)}) < 1e-6);
  }
}

TEST_CASE("cross_entropy equals nll_loss of log_softmax") {
  const Tensor x = random_tensor({20, 6}, 3, -3.0, 3.0);
  const Tensor labels = random_indices({20}, 4, 0, 6, DType::Int32);
  CHECK(std::abs(ops::cross_entropy(x, labels).item() - ops::nll_loss(ops::log_softmax(x), labels).item()) < 1e-5);
}

TEST_CASE("loss gradients match finite differences, index with repeats included") {
  const Tensor labels = random_indices({5}, 5, 0, 4, DType::Int32);
  const Tensor index = Tensor::from_vector<int32_t>({4, 1, 1, 3}, {4});
  for (const Tensor& selected : {Tensor(), index}) {
    Tensor x = random_tensor({5, 4}, 6, -2.0, 2.0).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::cross_entropy(in[0], labels, selected); },
                         {x}) < 1e-2);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::nll_loss(in[0], labels, selected); },
                         {x}) < 1e-2);
  }
}

TEST_CASE("rows outside the index get no gradient") {
  Tensor x = random_tensor({4, 3}, 7).set_requires_grad(true);
  const Tensor labels = Tensor::from_vector<int32_t>({0, 1, 2, 0}, {4});
  ops::cross_entropy(x, labels, Tensor::from_vector<int32_t>({2}, {1})).backward();
  const std::vector<float> grad = x.grad().to_vector<float>();
  for (std::size_t i = 0; i < grad.size(); ++i) {
    if (i / 3 != 2) CHECK(grad[i] == 0.0f);
  }
  double row_sum = grad[6] + grad[7] + grad[8];  // softmax − onehot sums to 0
  CHECK(std::abs(row_sum) < 1e-6);
  CHECK(grad[8] < 0.0f);
}

TEST_CASE("labels of rows outside the index are not read (unlabeled nodes may carry -1)") {
  const Tensor x = random_tensor({3, 4}, 8);
  const Tensor labels = Tensor::from_vector<int32_t>({2, -1, 1}, {3});
  const Tensor index = Tensor::from_vector<int32_t>({0, 2}, {2});
  CHECK(std::isfinite(ops::cross_entropy(x, labels, index).item()));
  CHECK_THROWS_AS(ops::cross_entropy(x, labels), InvalidArgument);  // all rows: the −1 is selected
}

TEST_CASE("losses refuse bad arguments") {
  const Tensor x = Tensor::zeros({3, 4});
  const Tensor labels = Tensor::from_vector<int32_t>({0, 3, 1}, {3});
  for (auto loss : {&ops::nll_loss, &ops::cross_entropy}) {
    CHECK_THROWS_AS(loss(x, Tensor::from_vector<int32_t>({0, 4, 1}, {3}), Tensor()), InvalidArgument);   // label >= C
    CHECK_THROWS_AS(loss(x, Tensor::from_vector<int32_t>({0, -1, 1}, {3}), Tensor()), InvalidArgument);  // label < 0
    CHECK_THROWS_AS(loss(x, labels, Tensor::from_vector<int32_t>({3}, {1})), InvalidArgument);          // index >= N
    CHECK_THROWS_AS(loss(x, labels, Tensor::from_vector<int32_t>({-1}, {1})), InvalidArgument);
    CHECK_THROWS_AS(loss(x, labels, Tensor::empty({0}, DType::Int32)), InvalidArgument);                 // no rows
    CHECK_THROWS_AS(loss(x, labels, Tensor::from_vector<int64_t>({0}, {1})), InvalidArgument);          // int64 index
    CHECK_THROWS_AS(loss(x, Tensor::from_vector<int64_t>({0, 1, 2}, {3}), Tensor()), InvalidArgument);
    CHECK_THROWS_AS(loss(x, Tensor::from_vector<int32_t>({0, 1}, {2}), Tensor()), InvalidArgument);      // N differs
    CHECK_THROWS_AS(loss(Tensor::zeros({3}), labels, Tensor()), InvalidArgument);
    CHECK_THROWS_AS(loss(Tensor::zeros({3, 0}), labels, Tensor()), InvalidArgument);                      // no classes
    CHECK_THROWS_AS(loss(Tensor::zeros({0, 4}), Tensor::empty({0}, DType::Int32), Tensor()), InvalidArgument);
  }
}
