#include <doctest/doctest.h>

#include "ops/elementwise.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

std::vector<double> reference(const Tensor& a, const Tensor& b, bool multiply) {
  const std::vector<double> x = to_double(a), y = to_double(b);
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double other = y[i % y.size()];
    out[i] = multiply ? x[i] * other : x[i] + other;
  }
  return out;
}

struct Pair {
  Shape a, b;
};
const Pair kPairs[] = {{{1, 1}, {1, 1}}, {{4, 3}, {4, 3}}, {{4, 3}, {3}}, {{2, 3, 5}, {3, 5}}, {{6, 2}, {}}};

}  // namespace

TEST_CASE("add and mul match float64 references with suffix broadcasting") {
  for (const Pair& pair : kPairs) {
    const Tensor a = random_tensor(pair.a, 1);
    const Tensor b = random_tensor(pair.b, 2);
    CHECK(ops::add(a, b).shape() == pair.a);
    CHECK(relative_error(ops::add(a, b), reference(a, b, false)) < 1e-7);
    CHECK(relative_error(ops::mul(a, b), reference(a, b, true)) < 1e-7);
  }
  const Tensor x = random_tensor({3, 4}, 3);
  std::vector<double> scaled = to_double(x);
  for (double& v : scaled) v *= -2.5;
  CHECK(relative_error(ops::scale(x, -2.5f), scaled) < 1e-7);
}

TEST_CASE("add, mul and scale gradients match finite differences, broadcast operands included") {
  for (const Pair& pair : kPairs) {
    Tensor a = random_tensor(pair.a, 4).set_requires_grad(true);
    Tensor b = random_tensor(pair.b, 5).set_requires_grad(true);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::add(in[0], in[1]); }, {a, b}) < 1e-2);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::mul(in[0], in[1]); }, {a, b}) < 1e-2);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::scale(in[0], 0.7f); }, {a}) < 1e-2);
  }
}

TEST_CASE("an operand used twice receives the sum of both gradients") {
  Tensor x = random_tensor({3, 2}, 6).set_requires_grad(true);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::mul(in[0], in[0]); }, {x}) < 1e-2);
}

TEST_CASE("elementwise ops refuse bad arguments") {
  const Tensor a = Tensor::zeros({4, 3});
  CHECK_THROWS_AS(ops::add(a, Tensor::zeros({4})), InvalidArgument);     // not a suffix
  CHECK_THROWS_AS(ops::mul(a, Tensor::zeros({1, 3})), InvalidArgument);  // size-1 axes do not stretch
  CHECK_THROWS_AS(ops::add(Tensor::zeros({3}), a), InvalidArgument);     // b larger than a
  CHECK_THROWS_AS(ops::add(a, Tensor::zeros({3}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::scale(Tensor::zeros({3}, DType::Int64), 2.0f), InvalidArgument);
  CHECK_THROWS_AS(ops::add(a, Tensor()), InvalidArgument);
}
