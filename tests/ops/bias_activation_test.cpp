#include <doctest/doctest.h>

#include <cmath>

#include "ops/activation.hpp"
#include "ops/bias_activation.hpp"
#include "ops/elementwise.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::FusedActivation;

namespace {

double apply(FusedActivation activation, double parameter, double z) {
  switch (activation) {
    case FusedActivation::None: return z;
    case FusedActivation::Relu: return z > 0 ? z : 0.0;
    case FusedActivation::Elu: return z > 0 ? z : parameter * std::expm1(z);
    case FusedActivation::LeakyRelu: return z > 0 ? z : parameter * z;
  }
  return z;
}

// x + bias kept away from the kinks at 0, where finite differences are meaningless.
Tensor inputs_away_from_kink(const Shape& shape, const Tensor& bias, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, -2.0, 2.0);
  float* data = x.data<float>();
  const std::vector<float> b = bias.to_vector<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float z = data[i] + b[static_cast<std::size_t>(i) % b.size()];
    if (std::abs(z) < 0.05f) data[i] += z < 0 ? -0.1f : 0.1f;
  }
  return x;
}

const FusedActivation kAll[] = {FusedActivation::None, FusedActivation::Relu, FusedActivation::Elu,
                                FusedActivation::LeakyRelu};

}  // namespace

TEST_CASE("bias_activation matches act(x + bias) in float64, with and without a bias") {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 3}, Shape{2, 5, 17}}) {
    const Tensor x = random_tensor(shape, 1, -3.0, 3.0);
    const Tensor bias = random_tensor({shape.back()}, 2);
    const std::vector<double> xs = to_double(x), bs = to_double(bias);
    for (FusedActivation activation : kAll) {
      std::vector<double> with_bias(xs.size()), without(xs.size());
      for (std::size_t i = 0; i < xs.size(); ++i) {
        with_bias[i] = apply(activation, 0.3, xs[i] + bs[i % bs.size()]);
        without[i] = apply(activation, 0.3, xs[i]);
      }
      CHECK(relative_error(ops::bias_activation(x, bias, activation, 0.3f), with_bias) < 1e-6);
      CHECK(relative_error(ops::bias_activation(x, Tensor(), activation, 0.3f), without) < 1e-6);
    }
  }
}

TEST_CASE("bias_activation equals the unfused ops exactly") {
  const Tensor x = random_tensor({9, 4}, 3);
  const Tensor bias = random_tensor({4}, 4);
  CHECK(ops::bias_activation(x, bias, FusedActivation::Relu).to_vector<float>() ==
        ops::relu(ops::add(x, bias)).to_vector<float>());
  CHECK(ops::bias_activation(x, bias, FusedActivation::Elu, 1.0f).to_vector<float>() ==
        ops::elu(ops::add(x, bias), 1.0f).to_vector<float>());
}

TEST_CASE("bias_activation gradients in x and bias match finite differences") {
  for (const Shape& shape : {Shape{1, 1}, Shape{5, 3}, Shape{2, 3, 4}}) {
    for (FusedActivation activation : kAll) {
      Tensor bias = random_tensor({shape.back()}, 5).set_requires_grad(true);
      Tensor x = inputs_away_from_kink(shape, bias, 6).set_requires_grad(true);
      CHECK(gradient_error(
                [activation](const std::vector<Tensor>& in) {
                  return ops::bias_activation(in[0], in[1], activation, 0.4f);
                },
                {x, bias}) < 1e-2);
    }
  }
}

TEST_CASE("bias_activation refuses bad arguments") {
  const Tensor x = Tensor::zeros({3, 4});
  CHECK_THROWS_AS(ops::bias_activation(x, Tensor::zeros({3}), FusedActivation::Relu), InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(x, Tensor::zeros({1, 4}), FusedActivation::Relu), InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(x, Tensor::zeros({4}, DType::Int32), FusedActivation::Relu), InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(Tensor::zeros({3, 4}, DType::Int32), Tensor(), FusedActivation::None),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(Tensor::zeros({}), Tensor(), FusedActivation::None), InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(x, Tensor(), FusedActivation::Elu, 0.0f), InvalidArgument);
  CHECK_THROWS_AS(ops::bias_activation(x, Tensor(), FusedActivation::LeakyRelu, -0.1f), InvalidArgument);
}
