#include <doctest/doctest.h>

#include <cmath>

#include "ops/reduce.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Σ over axis `axis` of x (shape [d0, d1, d2]), divided by the extent when `average`.
std::vector<double> reference_axis(const Tensor& x, int64_t axis, bool average) {
  const Shape& s = x.shape();
  const std::vector<double> v = to_double(x);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[static_cast<std::size_t>(i)];
  for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < s.size(); ++i) inner *= s[i];
  const int64_t extent = s[static_cast<std::size_t>(axis)];
  std::vector<double> out(static_cast<std::size_t>(outer * inner), 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < extent; ++k)
      for (int64_t i = 0; i < inner; ++i)
        out[static_cast<std::size_t>(o * inner + i)] += v[static_cast<std::size_t>((o * extent + k) * inner + i)];
  if (average)
    for (double& value : out) value /= static_cast<double>(extent);
  return out;
}

}  // namespace

TEST_CASE("sum and mean over all elements match float64 references") {
  for (const Shape& shape : {Shape{1}, Shape{1, 1}, Shape{7, 3}, Shape{100, 129}}) {
    const Tensor x = random_tensor(shape, 1);
    double total = 0.0;
    for (double v : to_double(x)) total += v;
    CHECK(ops::sum(x).shape() == Shape{});
    CHECK(relative_error(ops::sum(x), {total}) < 1e-6);
    CHECK(relative_error(ops::mean(x), {total / static_cast<double>(x.numel())}) < 1e-6);
  }
  CHECK(ops::sum(Tensor::zeros({0, 3})).item() == 0.0);
  CHECK(std::isnan(ops::mean(Tensor::zeros({0, 3})).item()));
}

TEST_CASE("sum and mean over one axis match float64 references, negative axes included") {
  const Tensor x = random_tensor({4, 70, 3}, 2);
  for (int64_t axis = 0; axis < 3; ++axis) {
    Shape expected = x.shape();
    expected.erase(expected.begin() + axis);
    CHECK(ops::sum(x, axis).shape() == expected);
    CHECK(relative_error(ops::sum(x, axis), reference_axis(x, axis, false)) < 1e-6);
    CHECK(relative_error(ops::mean(x, axis - 3), reference_axis(x, axis, true)) < 1e-6);
  }
}

TEST_CASE("reduction gradients match finite differences") {
  Tensor x = random_tensor({3, 4, 2}, 3).set_requires_grad(true);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::sum(in[0]); }, {x}) < 1e-2);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::mean(in[0]); }, {x}) < 1e-2);
  for (int64_t axis : {0, 1, 2, -1}) {
    CHECK(gradient_error([axis](const std::vector<Tensor>& in) { return ops::sum(in[0], axis); }, {x}) < 1e-2);
    CHECK(gradient_error([axis](const std::vector<Tensor>& in) { return ops::mean(in[0], axis); }, {x}) < 1e-2);
  }
}

TEST_CASE("reductions refuse bad arguments") {
  const Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_AS(ops::sum(x, 2), InvalidArgument);
  CHECK_THROWS_AS(ops::mean(x, -3), InvalidArgument);
  CHECK_THROWS_AS(ops::sum(Tensor::zeros({}), 0), InvalidArgument);
  CHECK_THROWS_AS(ops::sum(Tensor::zeros({2}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::mean(Tensor()), InvalidArgument);
}
