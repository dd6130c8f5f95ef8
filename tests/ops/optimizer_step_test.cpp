#include <doctest/doctest.h>

#include <cmath>

#include "ops/optimizer_step.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;

namespace {

// One-element parameter p = start, gradients applied one step each.
double sgd_trajectory(double start, std::initializer_list<float> gradients, const ops::SgdHyperparameters& hyper) {
  Tensor p = Tensor::full({1}, start);
  Tensor buffer;
  for (float g : gradients) ops::sgd_step(p, Tensor::full({1}, g), buffer, hyper);
  return p.item();
}

double adam_trajectory(double start, std::initializer_list<float> gradients, const ops::AdamHyperparameters& hyper) {
  Tensor p = Tensor::full({1}, start);
  Tensor m, v;
  int64_t step = 0;
  for (float g : gradients) ops::adam_step(p, Tensor::full({1}, g), m, v, ++step, hyper);
  return p.item();
}

}  // namespace

TEST_CASE("sgd_step follows torch.optim.SGD: weight decay, momentum (first step buf = d), nesterov") {
  // Plain: p = 1 − 0.1·0.5.
  CHECK(sgd_trajectory(1.0, {0.5f}, {0.1f}) == doctest::Approx(0.95).epsilon(1e-6));
  // d1 = 0.5 + 0.01·1 = 0.51, p1 = 0.949; d2 = 0.5 + 0.01·0.949 = 0.50949,
  // buf2 = 0.9·0.51 + 0.50949 = 0.96849, p2 = 0.949 − 0.096849 = 0.852151.
  CHECK(sgd_trajectory(1.0, {0.5f, 0.5f}, {0.1f, 0.9f, 0.01f}) == doctest::Approx(0.852151).epsilon(1e-6));
  // Nesterov: buf1 = 0.51, d = 0.51 + 0.9·0.51 = 0.969, p1 = 0.9031.
  CHECK(sgd_trajectory(1.0, {0.5f}, {0.1f, 0.9f, 0.01f, true}) == doctest::Approx(0.9031).epsilon(1e-6));
}

TEST_CASE("sgd_step without momentum leaves the momentum buffer undefined") {
  Tensor p = Tensor::full({3}, 1.0), buffer;
  ops::sgd_step(p, Tensor::full({3}, 1.0), buffer, {0.5f});
  CHECK_FALSE(buffer.defined());
  CHECK(p.to_vector<float>() == std::vector<float>{0.5f, 0.5f, 0.5f});
}

TEST_CASE("adam_step follows torch.optim.Adam and AdamW") {
  // The first Adam step moves every element by lr against the gradient's sign.
  CHECK(adam_trajectory(1.0, {0.5f}, {0.1f}) == doctest::Approx(0.9).epsilon(1e-6));
  CHECK(adam_trajectory(1.0, {-3.0f}, {0.1f}) == doctest::Approx(1.1).epsilon(1e-6));
  // Two steps with g = 0.5, −0.2, lr 0.1, wd 0.1 (values from the PyTorch formulas in float64).
  ops::AdamHyperparameters l2{0.1f};
  l2.weight_decay = 0.1f;
  CHECK(adam_trajectory(1.0, {0.5f, -0.2f}, l2) == doctest::Approx(0.8475190629593703).epsilon(1e-6));
  ops::AdamHyperparameters decoupled = l2;
  decoupled.decoupled_weight_decay = true;
  CHECK(adam_trajectory(1.0, {0.5f, -0.2f}, decoupled) == doctest::Approx(0.8465394180965108).epsilon(1e-6));
}

TEST_CASE("optimizer steps refuse bad arguments") {
  Tensor p = Tensor::zeros({2, 2}), m, v;
  const Tensor g = Tensor::zeros({2, 2});
  Tensor wrong_state = Tensor::zeros({4});
  CHECK_THROWS_AS(ops::sgd_step(p, Tensor::zeros({4}), m, {0.1f}), InvalidArgument);
  CHECK_THROWS_AS(ops::sgd_step(p, g, wrong_state, {0.1f, 0.9f}), InvalidArgument);
  CHECK_THROWS_AS(ops::sgd_step(p, g, m, {-0.1f}), InvalidArgument);
  CHECK_THROWS_AS(ops::sgd_step(p, g, m, {0.1f, 0.0f, 0.0f, true}), InvalidArgument);
  CHECK_THROWS_AS(ops::sgd_step(p, Tensor::zeros({2, 2}, DType::Int32), m, {0.1f}), InvalidArgument);
  CHECK_THROWS_AS(ops::adam_step(p, g, m, v, 0, {}), InvalidArgument);
  CHECK_THROWS_AS(ops::adam_step(p, g, wrong_state, v, 1, {}), InvalidArgument);
  ops::AdamHyperparameters bad_beta;
  bad_beta.beta2 = 1.0f;
  CHECK_THROWS_AS(ops::adam_step(p, g, m, v, 1, bad_beta), InvalidArgument);
  ops::AdamHyperparameters negative_decay;
  negative_decay.weight_decay = -1.0f;
  CHECK_THROWS_AS(ops::adam_step(p, g, m, v, 1, negative_decay), InvalidArgument);
}
