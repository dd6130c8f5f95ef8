// Dropout and Adam through the replay-parameter path (offsets and bias
// corrections read from memory when the work runs) give exactly the eager
// results, on the CPU.
#include <doctest/doctest.h>

#include <cmath>

#include "core/replay_parameters.hpp"
#include "ops/dropout.hpp"
#include "ops/optimizer_step.hpp"
#include "ops/reduce.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("dropout under a recording: the same masks forward and backward as eager, host offset as eager") {
  const Tensor x = random_tensor({37, 11}, 4, 0.5, 1.5);
  Generator eager(21), recorded(21);
  eager.set_offset(5);
  recorded.set_offset(5);
  for (int step = 0; step < 3; ++step) {
    CAPTURE(step);
    Tensor eager_input = x.clone().set_requires_grad(true);
    Tensor recorded_input = x.clone().set_requires_grad(true);
    const Tensor eager_first = ops::dropout(eager_input, 0.4f, true, eager);
    const Tensor eager_second = ops::dropout(eager_first, 0.25f, true, eager);
    Tensor recorded_second;
    const uint64_t offset_before = recorded.offset();
    {
      // A fresh recording per step: on the CPU the work runs at once, with the slot written at registration.
      ReplayParameters step_replay(Device::cpu());
      const ReplayParameters::Recording recording(step_replay);
      const Tensor recorded_first = ops::dropout(recorded_input, 0.4f, true, recorded);
      recorded_second = ops::dropout(recorded_first, 0.25f, true, recorded);
      CHECK(recorded.offset() == offset_before);  // held while recording
      ops::sum(recorded_second).backward();
      step_replay.prepare_launch();
    }
    ops::sum(eager_second).backward();
    CHECK(recorded_second.to_vector<float>() == eager_second.to_vector<float>());
    CHECK(recorded_input.grad().to_vector<float>() == eager_input.grad().to_vector<float>());
    CHECK(recorded.offset() == eager.offset());
  }
}

TEST_CASE("adam_step_deferred equals adam_step bit for bit with the same bias corrections") {
  for (const bool decoupled : {false, true}) {
    CAPTURE(decoupled);
    ops::AdamHyperparameters hyper;
    hyper.learning_rate = 0.01f;
    hyper.weight_decay = 5e-4f;
    hyper.decoupled_weight_decay = decoupled;
    Tensor eager_p = random_tensor({13, 7}, 8);
    Tensor deferred_p = eager_p.clone();
    Tensor eager_m, eager_v, deferred_m, deferred_v;
    for (int64_t step = 1; step <= 4; ++step) {
      const Tensor gradient = random_tensor({13, 7}, static_cast<uint64_t>(100 + step));
      ops::adam_step(eager_p, gradient, eager_m, eager_v, step, hyper);
      const ops::AdamBiasCorrection correction = ops::adam_bias_correction(step, hyper);
      ops::adam_step_deferred(deferred_p, gradient, deferred_m, deferred_v, &correction, hyper);
    }
    CHECK(deferred_p.to_vector<float>() == eager_p.to_vector<float>());
    CHECK(deferred_m.to_vector<float>() == eager_m.to_vector<float>());
    CHECK(deferred_v.to_vector<float>() == eager_v.to_vector<float>());
  }
}

TEST_CASE("adam_bias_correction is PyTorch's lr/(1-b1^t) and sqrt(1-b2^t); the deferred step checks its inputs") {
  ops::AdamHyperparameters hyper;
  hyper.learning_rate = 0.5f;
  const ops::AdamBiasCorrection first = ops::adam_bias_correction(1, hyper);
  CHECK(first.step_size == doctest::Approx(0.5 / 0.1));
  CHECK(first.bias_correction2_sqrt == doctest::Approx(std::sqrt(0.001)));
  Tensor p = random_tensor({3}, 1);
  const Tensor g = random_tensor({3}, 2);
  Tensor m, v;
  CHECK_THROWS_AS(ops::adam_step_deferred(p, g, m, v, nullptr, hyper), InvalidArgument);
  const Tensor wrong = random_tensor({4}, 3);
  CHECK_THROWS_AS(ops::adam_step_deferred(p, wrong, m, v, &first, hyper), InvalidArgument);
}

TEST_CASE("adam_step_many equals adam_step / adam_step_deferred per tensor, bit for bit") {
  ops::AdamHyperparameters plain;
  plain.learning_rate = 0.02f;
  ops::AdamHyperparameters decayed = plain;
  decayed.weight_decay = 0.1f;
  decayed.decoupled_weight_decay = true;
  const std::vector<Shape> shapes{{4, 3}, {1}, {0}, {17}};
  std::vector<Tensor> singles, batched, gradients, m1, v1, m2, v2;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    singles.push_back(random_tensor(shapes[i], 30 + i));
    batched.push_back(singles.back().clone());
    gradients.push_back(random_tensor(shapes[i], 40 + i));
  }
  m1.resize(shapes.size());
  v1.resize(shapes.size());
  m2.resize(shapes.size());
  v2.resize(shapes.size());
  const ops::AdamBiasCorrection deferred = ops::adam_bias_correction(3, decayed);
  for (int64_t step = 1; step <= 3; ++step) {
    std::vector<ops::AdamUpdate> updates;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const ops::AdamHyperparameters& hyper = i % 2 == 0 ? plain : decayed;
      const bool use_deferred = i == 3 && step == 3;
      ops::adam_step(singles[i], gradients[i], m1[i], v1[i], step, hyper);
      updates.push_back(ops::AdamUpdate{&batched[i], &gradients[i], &m2[i], &v2[i], hyper, use_deferred ? 0 : step,
                                        use_deferred ? &deferred : nullptr});
    }
    ops::adam_step_many(updates);
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    CAPTURE(i);
    CHECK(batched[i].to_vector<float>() == singles[i].to_vector<float>());
    CHECK(m2[i].to_vector<float>() == m1[i].to_vector<float>());
    CHECK(v2[i].to_vector<float>() == v1[i].to_vector<float>());
  }
}

TEST_CASE("adam_step_many refuses a bad entry and then updates nothing") {
  Tensor a = random_tensor({3}, 1);
  Tensor b = random_tensor({3}, 2);
  const Tensor good = random_tensor({3}, 3);
  const Tensor wrong = random_tensor({4}, 4);
  Tensor ma, va, mb, vb;
  const std::vector<float> before = a.to_vector<float>();
  const std::vector<ops::AdamUpdate> bad_shape{ops::AdamUpdate{&a, &good, &ma, &va, {}, 1, nullptr},
                                               ops::AdamUpdate{&b, &wrong, &mb, &vb, {}, 1, nullptr}};
  CHECK_THROWS_AS(ops::adam_step_many(bad_shape), InvalidArgument);
  CHECK(a.to_vector<float>() == before);
  const std::vector<ops::AdamUpdate> bad_step{ops::AdamUpdate{&a, &good, &ma, &va, {}, 0, nullptr}};
  CHECK_THROWS_AS(ops::adam_step_many(bad_step), InvalidArgument);
  const std::vector<ops::AdamUpdate> null_tensor{ops::AdamUpdate{&a, nullptr, &ma, &va, {}, 1, nullptr}};
  CHECK_THROWS_AS(ops::adam_step_many(null_tensor), InvalidArgument);
  CHECK(a.to_vector<float>() == before);
  CHECK_NOTHROW(ops::adam_step_many({}));
}
