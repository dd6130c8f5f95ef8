#include <doctest/doctest.h>

#include <cmath>

#include "ops/activation.hpp"
#include "tests/support/dense_checks.hpp"
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

TEST_CASE("sigmoid and tanh match float64 references and derivatives, saturated inputs included") {
  for (const Shape& shape : {Shape{1}, Shape{7, 3}, Shape{2, 5, 1}, Shape{0, 3}}) {
    for (ops::Activation kind : {ops::Activation::Sigmoid, ops::Activation::Tanh}) {
      CAPTURE(static_cast<int>(kind));
      Tensor x = random_tensor(shape, 21, -8.0, 8.0).set_requires_grad(true);
      const Tensor y = kind == ops::Activation::Sigmoid ? ops::sigmoid(x) : ops::tanh(x);
      std::vector<double> expected = to_double(x), derivative = to_double(x);
      for (double& v : expected) v = sgnn::testing::activation_reference(kind, v);
      CHECK(relative_error(y, expected) < 1e-6);
      const Tensor w = random_tensor(shape, 22);
      y.backward(w);
      // From the float output: y's rounding (e) moves y·(1 − y) or 1 − y² by
      // up to 2e absolutely, which is large relative to a saturated derivative.
      const std::vector<double> g = to_double(w);
      std::vector<double> bound(derivative.size());
      for (std::size_t i = 0; i < derivative.size(); ++i) {
        derivative[i] = g[i] * sgnn::testing::activation_derivative(kind, derivative[i]);
        bound[i] = 8 * sgnn::testing::kFloatUnitRoundoff * (std::abs(g[i]) + std::abs(derivative[i]));
      }
      CHECK(sgnn::testing::worst_bound_ratio(x.grad(), derivative, bound) <= 1.0);
    }
  }
  // Far in the tails: no inf / inf, no NaN.
  const Tensor tails = Tensor::from_vector(std::vector<float>{-200.0f, 200.0f}, {2});
  CHECK(ops::sigmoid(tails).to_vector<float>() == std::vector<float>{0.0f, 1.0f});
  CHECK(ops::tanh(tails).to_vector<float>() == std::vector<float>{-1.0f, 1.0f});
  Tensor x = random_tensor({4, 3}, 23, -3.0, 3.0).set_requires_grad(true);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::sigmoid(in[0]); }, {x}) < 1e-2);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::tanh(in[0]); }, {x}) < 1e-2);
}

TEST_CASE("BF16 sigmoid and tanh: bfloat16 results and gradients within (u + 16e)·|ref|") {
  CHECK(sgnn::testing::bf16::activation_error(Device::cpu(), ops::Activation::Sigmoid) <= 1.0);
  CHECK(sgnn::testing::bf16::activation_error(Device::cpu(), ops::Activation::Tanh) <= 1.0);
}

TEST_CASE("activations refuse bad arguments") {
  CHECK_THROWS_WITH_AS(ops::sigmoid(Tensor::zeros({2}, DType::Int32)),
                       doctest::Contains("sigmoid: argument 'x' must be float32 or bfloat16"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::tanh(Tensor()), doctest::Contains("tanh: argument 'x' is an undefined tensor"),
                       InvalidArgument);
  CHECK_THROWS_AS(ops::relu(Tensor::zeros({2}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::relu(Tensor()), InvalidArgument);
  CHECK_THROWS_AS(ops::elu(Tensor::zeros({2}), 0.0f), InvalidArgument);
  CHECK_THROWS_AS(ops::leaky_relu(Tensor::zeros({2}), -0.1f), InvalidArgument);
}
