#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "ops/math.hpp"
#include "tests/support/dense_checks.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::MathFunction;

namespace {

struct Function {
  const char* name;
  MathFunction function;
  ops::MathParameters parameters;
  double low, high;  // the inputs drawn: inside the domain, away from kinks for finite differences
  std::function<Tensor(const Tensor&)> op;
};

const std::vector<Function>& functions() {
  static const std::vector<Function> all = {
      {"exp", MathFunction::Exp, {}, -3.0, 3.0, [](const Tensor& x) { return ops::exp(x); }},
      {"log", MathFunction::Log, {}, 0.1, 4.0, [](const Tensor& x) { return ops::log(x); }},
      {"sqrt", MathFunction::Sqrt, {}, 0.1, 4.0, [](const Tensor& x) { return ops::sqrt(x); }},
      {"pow 3", MathFunction::Pow, {3.0f, 0.0f}, -2.0, 2.0, [](const Tensor& x) { return ops::pow(x, 3.0f); }},
      {"pow -1.5", MathFunction::Pow, {-1.5f, 0.0f}, 0.2, 3.0, [](const Tensor& x) { return ops::pow(x, -1.5f); }},
      {"pow 0.5", MathFunction::Pow, {0.5f, 0.0f}, 0.1, 3.0, [](const Tensor& x) { return ops::pow(x, 0.5f); }},
      {"clamp", MathFunction::Clamp, {-0.5f, 0.75f}, -2.0, 2.0,
       [](const Tensor& x) { return ops::clamp(x, -0.5f, 0.75f); }},
      {"neg", MathFunction::Neg, {}, -2.0, 2.0, [](const Tensor& x) { return ops::neg(x); }},
      {"abs", MathFunction::Abs, {}, -2.0, 2.0, [](const Tensor& x) { return ops::abs(x); }},
      {"square", MathFunction::Square, {}, -2.0, 2.0, [](const Tensor& x) { return ops::square(x); }},
  };
  return all;
}

// Inputs in [low, high), at least 0.01 from the kinks of clamp and abs (finite differences step 1e-3).
Tensor inputs(const Function& f, const Shape& shape, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, f.low, f.high);
  float* data = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    for (float kink : {0.0f, f.parameters.first, f.parameters.second}) {
      if (f.function != MathFunction::Clamp && f.function != MathFunction::Abs) continue;
      if (std::abs(data[i] - kink) < 0.01f) data[i] = kink + 0.01f;
    }
  }
  return x;
}

const Shape kShapes[] = {{1}, {7, 3}, {2, 5, 1}, {0, 4}, {}};

}  // namespace

TEST_CASE("math functions match float64 references on random shapes, negative and 1-sized included") {
  for (const Function& f : functions()) {
    CAPTURE(f.name);
    for (const Shape& shape : kShapes) {
      const Tensor x = inputs(f, shape, 11);
      const Tensor y = f.op(x);
      CHECK(y.shape() == shape);
      std::vector<double> reference = to_double(x);
      for (double& v : reference) v = math_reference(f.function, f.parameters, v);
      CHECK(relative_error(y, reference) < 1e-6);
    }
  }
}

TEST_CASE("math function gradients match float64 derivatives and finite differences") {
  for (const Function& f : functions()) {
    CAPTURE(f.name);
    for (const Shape& shape : kShapes) {
      Tensor x = inputs(f, shape, 12).set_requires_grad(true);
      const Tensor w = random_tensor(shape, 13);
      f.op(x).backward(w);
      std::vector<double> reference = to_double(x);
      const std::vector<double> g = to_double(w);
      for (std::size_t i = 0; i < reference.size(); ++i) reference[i] = g[i] * math_derivative(f.function, f.parameters, reference[i]);
      CHECK(relative_error(x.grad(), reference) < 1e-5);
      x.zero_grad();
      CHECK(gradient_error([&f](const std::vector<Tensor>& in) { return f.op(in[0]); }, {x}) < 1e-2);
    }
  }
}

TEST_CASE("gradients at the non-differentiable points are PyTorch's") {
  const float inf = std::numeric_limits<float>::infinity();
  auto gradient = [](const std::function<Tensor(const Tensor&)>& op, std::vector<float> values) {
    Tensor x = Tensor::from_vector(values, {static_cast<int64_t>(values.size())}).set_requires_grad(true);
    op(x).backward(Tensor::full(x.shape(), 1.0));
    return x.grad().to_vector<float>();
  };
  // clamp: the gradient passes at both bounds, 0 strictly outside.
  CHECK(gradient([](const Tensor& x) { return ops::clamp(x, -1.0f, 2.0f); }, {-1.0f, 2.0f, -1.5f, 2.5f, 0.0f}) ==
        std::vector<float>{1.0f, 1.0f, 0.0f, 0.0f, 1.0f});
  CHECK(gradient([](const Tensor& x) { return ops::abs(x); }, {0.0f, -0.0f, -3.0f, 3.0f}) ==
        std::vector<float>{0.0f, 0.0f, -1.0f, 1.0f});
  CHECK(gradient([](const Tensor& x) { return ops::sqrt(x); }, {0.0f}) == std::vector<float>{inf});
  CHECK(gradient([](const Tensor& x) { return ops::pow(x, 0.0f); }, {0.0f, -2.0f}) == std::vector<float>{0.0f, 0.0f});
  CHECK(gradient([](const Tensor& x) { return ops::pow(x, 2.0f); }, {0.0f, -2.0f}) == std::vector<float>{0.0f, -4.0f});
  // A one-sided clamp, and NaN passing through.
  const Tensor clamped = ops::clamp(Tensor::from_vector(std::vector<float>{-5.0f, std::nanf(""), 7.0f}, {3}), 0.0f, inf);
  const std::vector<float> values = clamped.to_vector<float>();
  CHECK(values[0] == 0.0f);
  CHECK(std::isnan(values[1]));
  CHECK(values[2] == 7.0f);
}

TEST_CASE("BF16 math functions: bfloat16 results and gradients within (u + 16e)·|ref|") {
  for (const Function& f : functions()) {
    CAPTURE(f.name);
    CHECK(bf16::math_error(Device::cpu(), f.function, f.parameters, f.low, f.high) <= 1.0);
  }
}

TEST_CASE("math functions refuse bad arguments, naming the op and the argument") {
  CHECK_THROWS_WITH_AS(ops::exp(Tensor::zeros({2}, DType::Int32)),
                       doctest::Contains("exp: argument 'x' must be float32 or bfloat16"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::log(Tensor()), doctest::Contains("log: argument 'x' is an undefined tensor"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::clamp(Tensor::zeros({2}), 1.0f, -1.0f),
                       doctest::Contains("clamp: arguments 'min' and 'max' must satisfy min <= max"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::clamp(Tensor::zeros({2}), std::nanf(""), 1.0f), doctest::Contains("clamp:"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::pow(Tensor::zeros({2}), std::numeric_limits<float>::infinity()),
                       doctest::Contains("pow: argument 'exponent' must be finite"), InvalidArgument);
  CHECK_THROWS_AS(ops::sqrt(Tensor::zeros({2}, DType::Int64)), InvalidArgument);
}
