#include <doctest/doctest.h>

#include "ops/matmul.hpp"
#include "ops/matmul_backend.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

std::vector<double> reference_product(const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const std::vector<double> x = to_double(a), y = to_double(b);
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        c[static_cast<std::size_t>(i * n + j)] += x[static_cast<std::size_t>(i * k + p)] * y[static_cast<std::size_t>(p * n + j)];
  return c;
}

}  // namespace

TEST_CASE("matmul matches a float64 reference on shapes that cross the cache blocks") {
  struct Case { int64_t m, k, n; };
  for (const Case c : {Case{1, 1, 1}, Case{3, 5, 2}, Case{33, 300, 17}, Case{70, 1433, 16}, Case{5, 7, 513}}) {
    const Tensor a = random_tensor({c.m, c.k}, 1);
    const Tensor b = random_tensor({c.k, c.n}, 2);
    const Tensor product = ops::matmul(a, b);
    CHECK(product.shape() == Shape{c.m, c.n});
    CHECK(relative_error(product, reference_product(a, b)) < 1e-5);
  }
}

TEST_CASE("the CPU backend's transposed forms (used by backward) match the reference across cache blocks") {
  const int64_t m = 45, k = 300, n = 270;  // crosses the row tile, the K panel and the N panel
  const Tensor a = random_tensor({m, k}, 5);
  const Tensor b = random_tensor({k, n}, 6);
  const std::vector<double> expected = reference_product(a, b);
  // Transposed copies of the operands, so that op(stored) is a or b again.
  auto transpose = [](const Tensor& t) {
    const std::vector<float> v = t.to_vector<float>();
    const int64_t rows = t.size(0), cols = t.size(1);
    std::vector<float> out(v.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[static_cast<std::size_t>(c * rows + r)] = v[static_cast<std::size_t>(r * cols + c)];
    return Tensor::from_vector(out, {cols, rows});
  };
  const Tensor at = transpose(a), bt = transpose(b);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Tensor c = testing::poisoned({m, n}, Device::cpu());
      ops::matmul_forward(ops::Cpu{}, ta ? at : a, ta, tb ? bt : b, tb, c);
      CHECK(relative_error(c, expected) < 1e-5);
    }
  }
}

TEST_CASE("matmul with an empty inner extent gives zeros") {
  const Tensor product = ops::matmul(Tensor::empty({3, 0}), Tensor::empty({0, 4}));
  CHECK(product.shape() == Shape{3, 4});
  for (float value : product.to_vector<float>()) CHECK(value == 0.0f);
}

TEST_CASE("matmul gradients match finite differences") {
  struct Case { int64_t m, k, n; };
  for (const Case c : {Case{1, 1, 1}, Case{4, 3, 5}, Case{2, 7, 3}}) {
    Tensor a = random_tensor({c.m, c.k}, 3).set_requires_grad(true);
    Tensor b = random_tensor({c.k, c.n}, 4).set_requires_grad(true);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::matmul(in[0], in[1]); }, {a, b}) < 1e-2);
  }
}

TEST_CASE("matmul refuses bad arguments") {
  const Tensor a = Tensor::zeros({2, 3});
  CHECK_THROWS_AS(ops::matmul(a, Tensor::zeros({2, 3})), InvalidArgument);          // inner extents differ
  CHECK_THROWS_AS(ops::matmul(a, Tensor::zeros({3})), InvalidArgument);             // rank 1
  CHECK_THROWS_AS(ops::matmul(Tensor::zeros({2, 3, 1}), a), InvalidArgument);      // rank 3
  CHECK_THROWS_AS(ops::matmul(a, Tensor::zeros({3, 2}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::matmul(Tensor(), a), InvalidArgument);
}

TEST_CASE("matmul's TF32 switch defaults to off and can be toggled") {
  CHECK_FALSE(ops::allow_tf32());
  ops::set_allow_tf32(true);
  CHECK(ops::allow_tf32());
  ops::set_allow_tf32(false);
  CHECK_FALSE(ops::allow_tf32());
}
