#include <doctest/doctest.h>

#include <cmath>

#include "ops/activation.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using sgnn::testing::gradient_error;
using sgnn::testing::random_tensor;
using sgnn::testing::relative_error;
using sgnn::testing::to_double;

namespace {

std::vector<double> reference(const Tensor& x, double (*f)(double)) {
  std::vector<double> out = to_double(x);
  for (double& v : out) v = f(v);
  return out;
}

// Inputs kept away from the kink at 0, where finite differences are meaningless.
Tensor away_from_zero(const Shape& shape, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, -2.0, 2.0);
  float* data = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::abs(data[i]) < 0.05f) data[i] = data[i] < 0 ? -0.05f : 0.05f;
  }
  return x;
}

}  // namespace

TEST_CASE("activations match float64 references on random shapes") {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 3}, Shape{2, 5, 4}}) {
    const Tensor x = random_tensor(shape, 11, -3.0, 3.0);
    CHECK(relative_error(ops::relu(x), reference(x, [](double v) { return v > 0 ? v : 0.0; })) < 1e-7);
    CHECK(relative_error(ops::elu(x), reference(x, [](double v) { return v > 0 ? v : std::expm1(v); })) < 1e-6);
    CHECK(relative_error(ops::leaky_relu(x, 0.2f), reference(x, [](double v) { return v > 0 ? v : 0.2 * v; })) < 1e-7);
    CHECK(ops::relu(x).shape() == shape);
  }
}

TEST_CASE("activation gradients match finite differences") {
  for (const Shape& shape : {Shape{1, 1}, Shape{4, 3}}) {
    Tensor x = away_from_zero(shape, 5).set_requires_grad(true);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::relu(in[0]); }, {x}) < 1e-2);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::elu(in[0], 1.5f); }, {x}) < 1e-2);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::leaky_relu(in[0], 0.2f); }, {x}) < 1e-2);
  }
}

TEST_CASE("activations refuse bad arguments") {
  CHECK_THROWS_AS(ops::relu(Tensor::zeros({2}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::relu(Tensor()), InvalidArgument);
  CHECK_THROWS_AS(ops::elu(Tensor::zeros({2}), 0.0f), InvalidArgument);
  CHECK_THROWS_AS(ops::leaky_relu(Tensor::zeros({2}), -0.1f), InvalidArgument);
}
