#include <doctest/doctest.h>

#include "training/optimizer.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::training;

namespace {

Tensor parameter(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size());
  Tensor p = Tensor::from_vector(values, {n});
  p.set_requires_grad(true);
  return p;
}

void set_gradient(Tensor& p, float value) { p.set_grad(Tensor::full(p.shape(), value)); }

double value(const Tensor& p, std::size_t i = 0) { return static_cast<double>(p.to_vector<float>().at(i)); }

}  // namespace

TEST_CASE("Sgd applies per-group learning rate and weight decay overrides with PyTorch's momentum") {
  Tensor a = parameter({1.0f});
  Tensor b = parameter({1.0f});
  Sgd sgd(std::vector<ParameterGroup>{{{a}, std::nullopt, std::nullopt}, {{b}, 0.1f, 0.01f}},
          ops::SgdHyperparameters{0.5f, 0.9f, 0.0f});
  for (int i = 0; i < 2; ++i) {
    set_gradient(a, 0.5f);
    set_gradient(b, 0.5f);
    sgd.step();
  }
  // a: lr 0.5, no decay: buf1 = 0.5, p1 = 0.75; buf2 = 0.45 + 0.5 = 0.95, p2 = 0.75 − 0.475 = 0.275.
  CHECK(value(a) == doctest::Approx(0.275).epsilon(1e-6));
  // b: lr 0.1, wd 0.01: d1 = 0.51, p1 = 0.949; d2 = 0.50949, buf2 = 0.96849, p2 = 0.852151.
  CHECK(value(b) == doctest::Approx(0.852151).epsilon(1e-6));
  CHECK(sgd.step_count() == 2);
}

TEST_CASE("Adam (L2) and AdamW (decoupled) follow the PyTorch formulas") {
  // g = 0.5 then −0.2, lr 0.1, wd 0.1; values from torch.optim's formulas in float64.
  Tensor a = parameter({1.0f});
  Adam adam(std::vector<ParameterGroup>{{{a}, 0.1f, 0.1f}});
  Tensor b = parameter({1.0f});
  ops::AdamHyperparameters hyper;
  hyper.learning_rate = 0.1f;
  hyper.weight_decay = 0.1f;
  AdamW adamw(std::vector<Tensor>{b}, hyper);
  for (float g : {0.5f, -0.2f}) {
    set_gradient(a, g);
    set_gradient(b, g);
    adam.step();
    adamw.step();
  }
  CHECK(value(a) == doctest::Approx(0.8475190629593703).epsilon(1e-6));
  CHECK(value(b) == doctest::Approx(0.8465394180965108).epsilon(1e-6));
  CHECK(AdamW::defaults().weight_decay == 0.01f);
  CHECK(AdamW::defaults().decoupled_weight_decay);
}

TEST_CASE("a parameter without a gradient is skipped and keeps its own Adam step count") {
  Tensor a = parameter({1.0f});
  Tensor b = parameter({1.0f});
  Adam adam(std::vector<Tensor>{a, b}, ops::AdamHyperparameters{0.1f});
  set_gradient(a, 1.0f);
  adam.step();
  CHECK(value(b) == 1.0);
  set_gradient(b, 1.0f);
  adam.step();
  // b's first update: bias-corrected, it moves by exactly lr.
  CHECK(value(b) == doctest::Approx(0.9).epsilon(1e-6));
  adam.zero_grad();
  CHECK_FALSE(a.grad().defined());
  CHECK_FALSE(b.grad().defined());
}

TEST_CASE("state and load_state resume an optimizer exactly") {
  Tensor a = parameter({1.0f, -2.0f, 3.0f});
  Adam original(std::vector<Tensor>{a}, ops::AdamHyperparameters{0.05f});
  for (float g : {0.3f, -0.7f}) {
    set_gradient(a, g);
    original.step();
  }
  const std::vector<Tensor> saved = original.state();
  REQUIRE(saved.size() == 4);  // step count, a's step count, m, v
  for (const Tensor& t : saved) CHECK(t.device().is_cpu());

  Tensor copy = a.clone();
  copy.set_requires_grad(true);
  Adam resumed(std::vector<Tensor>{copy}, ops::AdamHyperparameters{0.05f});
  resumed.load_state(saved);
  CHECK(resumed.step_count() == 2);
  set_gradient(a, 0.9f);
  set_gradient(copy, 0.9f);
  original.step();
  resumed.step();
  CHECK(a.to_vector<float>() == copy.to_vector<float>());
  // The loaded state is a copy: stepping did not write into `saved`.
  CHECK(saved[2].to_vector<float>() != original.state()[2].to_vector<float>());
}

TEST_CASE("load_state refuses a state of the wrong size, dtype or shape and changes nothing") {
  Tensor a = parameter({1.0f, 2.0f});
  Sgd sgd(std::vector<Tensor>{a}, ops::SgdHyperparameters{0.1f, 0.9f});
  const std::vector<Tensor> good = sgd.state();
  REQUIRE(good.size() == 3);
  std::vector<Tensor> too_short(good.begin(), good.end() - 1);
  CHECK_THROWS_AS(sgd.load_state(too_short), InvalidArgument);
  std::vector<Tensor> wrong_shape = good;
  wrong_shape[2] = Tensor::zeros({3});
  CHECK_THROWS_AS(sgd.load_state(wrong_shape), InvalidArgument);
  std::vector<Tensor> wrong_dtype = good;
  wrong_dtype[0] = Tensor::zeros({1});
  CHECK_THROWS_AS(sgd.load_state(wrong_dtype), InvalidArgument);
  std::vector<Tensor> bad_later = good;
  bad_later[0] = Tensor::from_vector<int64_t>({5}, {1});
  bad_later[2] = Tensor::zeros({1});
  CHECK_THROWS_AS(sgd.load_state(bad_later), InvalidArgument);
  CHECK(sgd.step_count() == 0);  // the valid first entry was not applied
}

TEST_CASE("optimizers refuse bad construction arguments") {
  Tensor a = parameter({1.0f});
  CHECK_THROWS_AS(Sgd(std::vector<Tensor>{a, a}, ops::SgdHyperparameters{0.1f}), InvalidArgument);
  CHECK_THROWS_AS(Sgd(std::vector<Tensor>{Tensor::zeros({2}, DType::Int32)}, ops::SgdHyperparameters{0.1f}),
                  InvalidArgument);
  CHECK_THROWS_AS(Sgd(std::vector<Tensor>{a}, ops::SgdHyperparameters{-0.1f}), InvalidArgument);
  CHECK_THROWS_AS(Sgd(std::vector<Tensor>{a}, ops::SgdHyperparameters{0.1f, 0.0f, 0.0f, true}), InvalidArgument);
  CHECK_THROWS_AS(Sgd(std::vector<ParameterGroup>{}, ops::SgdHyperparameters{0.1f}), InvalidArgument);
  CHECK_THROWS_AS(Adam(std::vector<ParameterGroup>{{{a}, -1.0f, std::nullopt}}), InvalidArgument);
  ops::AdamHyperparameters bad;
  bad.beta1 = 1.0f;
  CHECK_THROWS_AS(Adam(std::vector<Tensor>{a}, bad), InvalidArgument);
  CHECK_THROWS_AS(Adam(std::vector<Tensor>{Tensor()}), InvalidArgument);
}
