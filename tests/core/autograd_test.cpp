#include <doctest/doctest.h>

#include "core/autograd.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;

namespace {

// Minimal differentiable ops for testing the engine alone (CPU, float32).
Tensor scale(const Tensor& x, float factor) {
  Tensor y = Tensor::empty_like(x);
  for (int64_t i = 0; i < x.numel(); ++i) y.data<float>()[i] = factor * x.data<float>()[i];
  if (autograd::needs_recording({x})) {
    autograd::record("scale", {x}, y, [factor](const Tensor& g, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{scale(g, factor)};
    });
  }
  return y;
}

Tensor multiply(const Tensor& a, const Tensor& b) {
  Tensor y = Tensor::empty_like(a);
  for (int64_t i = 0; i < a.numel(); ++i) y.data<float>()[i] = a.data<float>()[i] * b.data<float>()[i];
  if (autograd::needs_recording({a, b})) {
    autograd::record("multiply", {a, b}, y,
                     [sa = a.detach(), sb = b.detach()](const Tensor& g, const autograd::NeedsGrad& needs) {
                       return std::vector<Tensor>{needs[0] ? multiply(g, sb) : Tensor(),
                                                  needs[1] ? multiply(g, sa) : Tensor()};
                     });
  }
  return y;
}

Tensor total(const Tensor& x) {
  float sum = 0.0f;
  for (int64_t i = 0; i < x.numel(); ++i) sum += x.data<float>()[i];
  Tensor y = Tensor::full({1}, sum);
  if (autograd::needs_recording({x})) {
    autograd::record("total", {x}, y, [shape = x.shape()](const Tensor& g, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{Tensor::full(shape, g.item())};
    });
  }
  return y;
}

}  // namespace

TEST_CASE("backward computes the product rule and sums gradients of a tensor used twice") {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3}, {3});
  x.set_requires_grad(true);
  // L = Σ (x * x) * 3 + Σ x  ->  dL/dx = 6x + 1
  const Tensor loss_a = total(scale(multiply(x, x), 3.0f));
  const Tensor loss_b = total(x);
  const Tensor loss = multiply(loss_a, Tensor::full({1}, 1.0));
  loss.backward();
  loss_b.backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{7, 13, 19});
}

TEST_CASE("gradients accumulate across backward calls until zero_grad") {
  Tensor x = Tensor::from_vector(std::vector<float>{1, -1}, {2});
  x.set_requires_grad(true);
  total(scale(x, 2.0f)).backward();
  total(scale(x, 2.0f)).backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{4, 4});
  x.zero_grad();
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("inputs that do not require grad get none and record nothing") {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2}, {2});
  Tensor constant = Tensor::from_vector(std::vector<float>{5, 6}, {2});
  x.set_requires_grad(true);
  const Tensor y = multiply(x, constant);
  CHECK(y.requires_grad());
  CHECK(y.grad_fn()->name() == "multiply");
  total(y).backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{5, 6});
  CHECK_FALSE(constant.grad().defined());
  CHECK_FALSE(multiply(constant, constant).requires_grad());
}

TEST_CASE("NoGradGuard builds no tape") {
  Tensor x = Tensor::from_vector(std::vector<float>{1}, {1});
  x.set_requires_grad(true);
  {
    autograd::NoGradGuard guard;
    CHECK_FALSE(autograd::grad_enabled());
    const Tensor y = scale(x, 2.0f);
    CHECK_FALSE(y.requires_grad());
    CHECK_FALSE(y.grad_fn());
  }
  CHECK(autograd::grad_enabled());
  CHECK(scale(x, 2.0f).requires_grad());
}

TEST_CASE("backward twice through a freed graph is a clear error; retain_graph allows it") {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2}, {2});
  x.set_requires_grad(true);
  const Tensor loss = total(multiply(x, x));
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{4, 8});
  CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("freed by an earlier backward"), AutogradError);
}

TEST_CASE("backward on a non-scalar root needs a gradient of its shape") {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2}, {2});
  x.set_requires_grad(true);
  const Tensor y = scale(x, 3.0f);
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("needs a gradient"), AutogradError);
  CHECK_THROWS_AS(y.backward(Tensor::full({3}, 1.0)), AutogradError);
  y.backward(Tensor::from_vector(std::vector<float>{1, 10}, {2}));
  CHECK(x.grad().to_vector<float>() == std::vector<float>{3, 30});
}

TEST_CASE("backward on a tensor without gradients and set_requires_grad on a non-leaf are refused") {
  const Tensor constant = Tensor::full({1}, 2.0);
  CHECK_THROWS_WITH_AS(constant.backward(), doctest::Contains("does not require gradients"), AutogradError);
  Tensor x = Tensor::full({1}, 2.0);
  x.set_requires_grad(true);
  Tensor y = scale(x, 2.0f);
  CHECK_THROWS_AS(y.set_requires_grad(false), AutogradError);
  CHECK_THROWS_AS(Tensor::full({1}, 1.0, DType::Int64).set_requires_grad(true), InvalidArgument);
}

TEST_CASE("a backward that returns a gradient of the wrong shape is reported with the node's name") {
  Tensor x = Tensor::full({2}, 1.0);
  x.set_requires_grad(true);
  Tensor y = Tensor::full({2}, 1.0);
  autograd::record("broken", {x}, y, [](const Tensor&, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{Tensor::full({3}, 1.0)};
  });
  CHECK_THROWS_WITH_AS(y.backward(Tensor::full({2}, 1.0)), doctest::Contains("'broken'"), AutogradError);
}

TEST_CASE("the finite-difference checker accepts a right gradient and rejects a planted sign error") {
  Tensor a = testing::random_tensor({3, 2}, 1).set_requires_grad(true);
  Tensor b = testing::random_tensor({3, 2}, 2).set_requires_grad(true);
  auto right = [](const std::vector<Tensor>& in) { return multiply(in[0], in[1]); };
  CHECK(testing::gradient_error(right, {a, b}) < 1e-2);
  auto wrong = [](const std::vector<Tensor>& in) {
    Tensor y = Tensor::empty_like(in[0]);
    for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] = in[0].data<float>()[i] * 2.0f;
    autograd::record("wrong_sign", {in[0]}, y, [](const Tensor& g, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{scale(g, -2.0f)};
    });
    return y;
  };
  CHECK(testing::gradient_error(wrong, {a}) > 1.0);
}
