#include <doctest/doctest.h>

#include <cmath>

#include "ops/softmax.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

std::vector<double> reference(const Tensor& x, bool log) {
  const int64_t cols = x.size(-1);
  const std::vector<double> v = to_double(x);
  std::vector<double> out(v.size());
  for (std::size_t r = 0; r < v.size() / static_cast<std::size_t>(cols); ++r) {
    const double* row = v.data() + r * static_cast<std::size_t>(cols);
    double maximum = row[0];
    for (int64_t c = 1; c < cols; ++c) maximum = std::max(maximum, row[c]);
    double total = 0.0;
    for (int64_t c = 0; c < cols; ++c) total += std::exp(row[c] - maximum);
    for (int64_t c = 0; c < cols; ++c) {
      out[r * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] =
          log ? row[c] - maximum - std::log(total) : std::exp(row[c] - maximum) / total;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("softmax and log_softmax match float64 references over the last axis") {
  for (const Shape& shape : {Shape{1}, Shape{1, 1}, Shape{5, 7}, Shape{2, 3, 17}, Shape{3, 1000}}) {
    const Tensor x = random_tensor(shape, 1, -5.0, 5.0);
    CHECK(relative_error(ops::softmax(x), reference(x, false)) < 1e-6);
    CHECK(relative_error(ops::log_softmax(x), reference(x, true)) < 1e-6);
  }
}

TEST_CASE("softmax stays finite for logits far beyond exp's range") {
  const Tensor x = Tensor::from_vector<float>({1000.0f, 999.0f, -1000.0f, 80.0f, 90.0f, 100.0f}, {2, 3});
  CHECK(relative_error(ops::softmax(x), reference(x, false)) < 1e-6);
  CHECK(relative_error(ops::log_softmax(x), reference(x, true)) < 1e-6);
}

TEST_CASE("softmax and log_softmax gradients match finite differences") {
  for (const Shape& shape : {Shape{1, 1}, Shape{4, 5}, Shape{2, 2, 3}}) {
    Tensor x = random_tensor(shape, 2).set_requires_grad(true);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::softmax(in[0]); }, {x}) < 1e-2);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::log_softmax(in[0]); }, {x}) < 1e-2);
  }
}

TEST_CASE("softmax refuses bad arguments") {
  CHECK_THROWS_AS(ops::softmax(Tensor::zeros({})), InvalidArgument);
  CHECK_THROWS_AS(ops::log_softmax(Tensor::zeros({3}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::softmax(Tensor()), InvalidArgument);
}
