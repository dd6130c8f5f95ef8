#include <doctest/doctest.h>

#include "ops/shape.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("reshape shares storage, infers -1 and keeps the element order") {
  const Tensor x = random_tensor({2, 3, 4}, 1);
  const Tensor y = ops::reshape(x, {6, -1});
  CHECK(y.shape() == Shape{6, 4});
  CHECK(y.shares_storage_with(x));
  CHECK(to_double(y) == to_double(x));
}

TEST_CASE("reshape gradient flows back in the input's shape") {
  Tensor x = random_tensor({2, 6}, 2).set_requires_grad(true);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::reshape(in[0], {3, 2, 2}); }, {x}) < 1e-2);
}

TEST_CASE("concat places every input in its block along the axis") {
  const Tensor a = random_tensor({2, 3, 2}, 3);
  const Tensor b = random_tensor({2, 1, 2}, 4);
  const Tensor c = ops::concat({a, b}, 1);
  REQUIRE(c.shape() == Shape{2, 4, 2});
  const std::vector<double> va = to_double(a), vb = to_double(b), vc = to_double(c);
  for (std::size_t o = 0; o < 2; ++o) {
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t i = 0; i < 2; ++i) {
        const double expected = k < 3 ? va[(o * 3 + k) * 2 + i] : vb[(o * 1 + (k - 3)) * 2 + i];
        CHECK(vc[(o * 4 + k) * 2 + i] == expected);
      }
    }
  }
  CHECK(ops::concat({a, b}, -2).shape() == Shape{2, 4, 2});
  CHECK(ops::concat({a, a}, 0).shape() == Shape{4, 3, 2});
  CHECK(ops::concat({a, Tensor::zeros({2, 3, 0})}, 2).shape() == Shape{2, 3, 2});
}

TEST_CASE("concat gradient is split back into the inputs") {
  for (int64_t axis : {0, 1, 2}) {
    Shape sa{2, 3, 2}, sb{2, 3, 2};
    sb[static_cast<std::size_t>(axis)] = 1;
    Tensor a = random_tensor(sa, 5).set_requires_grad(true);
    Tensor b = random_tensor(sb, 6).set_requires_grad(true);
    Tensor c = random_tensor(sa, 7);  // needs no gradient
    CHECK(gradient_error([axis](const std::vector<Tensor>& in) { return ops::concat({in[0], in[1], in[2]}, axis); },
                         {a, b, c}) < 1e-2);
  }
}

TEST_CASE("reshape and concat refuse bad arguments") {
  const Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_AS(ops::reshape(x, {4, 2}), InvalidArgument);
  CHECK_THROWS_AS(ops::reshape(Tensor(), {1}), InvalidArgument);
  CHECK_THROWS_AS(ops::concat({}, 0), InvalidArgument);
  CHECK_THROWS_AS(ops::concat({x, Tensor::zeros({3, 3})}, 1), InvalidArgument);  // other extents differ
  CHECK_THROWS_AS(ops::concat({x, Tensor::zeros({2, 3, 1})}, 0), InvalidArgument);  // rank differs
  CHECK_THROWS_AS(ops::concat({x, x}, 2), InvalidArgument);
  CHECK_THROWS_AS(ops::concat({x, Tensor::zeros({2, 3}, DType::Int32)}, 0), InvalidArgument);
}
