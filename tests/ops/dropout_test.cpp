#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ops/dropout.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("dropout is the identity in evaluation and for p = 0") {
  const Tensor x = random_tensor({4, 5}, 1);
  Generator generator(3);
  CHECK(ops::dropout(x, 0.5f, false, generator).shares_storage_with(x));
  CHECK(ops::dropout(x, 0.0f, true, generator).shares_storage_with(x));
  CHECK(generator.offset() == 0);  // no stream was consumed
}

TEST_CASE("dropout keeps element i iff the generator's stream gives uniform16(i) >= p, scaled by 1/(1-p)") {
  const float p = 0.3f;
  const Tensor x = random_tensor({257, 33}, 2, 0.5, 1.5);  // never 0, so a kept element is never 0
  Generator generator(42);
  Generator replay = generator;
  const Tensor y = ops::dropout(x, p, true, generator);
  const PhiloxStream stream = replay.next_stream(static_cast<uint64_t>(x.numel()));
  CHECK(generator.offset() == replay.offset());
  const std::vector<float> in = x.to_vector<float>();
  const std::vector<float> out = y.to_vector<float>();
  int64_t dropped = 0;
  bool all_match = true;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool keep = stream.uniform16(i) >= p;
    dropped += keep ? 0 : 1;
    all_match = all_match && out[i] == (keep ? in[i] * (1.0f / (1.0f - p)) : 0.0f);
  }
  CHECK(all_match);
  // 8481 Bernoulli(0.3) draws: the dropped fraction lies within 5 standard deviations of p.
  const double n = static_cast<double>(in.size());
  CHECK(std::abs(static_cast<double>(dropped) / n - 0.3) < 5.0 * std::sqrt(0.3 * 0.7 / n));
}

TEST_CASE("successive dropout calls draw different masks; the same seed repeats them") {
  const Tensor x = Tensor::full({1000}, 1.0);
  Generator a(7), b(7);
  const std::vector<float> first = ops::dropout(x, 0.5f, true, a).to_vector<float>();
  const std::vector<float> second = ops::dropout(x, 0.5f, true, a).to_vector<float>();
  CHECK(first != second);
  CHECK(ops::dropout(x, 0.5f, true, b).to_vector<float>() == first);
}

TEST_CASE("dropout gradient matches finite differences for a fixed mask") {
  Tensor x = random_tensor({6, 5}, 3).set_requires_grad(true);
  CHECK(gradient_error(
            [](const std::vector<Tensor>& in) {
              Generator generator(11);  // the same mask on every evaluation
              return ops::dropout(in[0], 0.4f, true, generator);
            },
            {x}) < 1e-2);
}

TEST_CASE("dropout refuses p outside [0, 1) and non-float input") {
  const Tensor x = Tensor::zeros({3});
  CHECK_THROWS_AS(ops::dropout(x, -0.1f, true), InvalidArgument);
  CHECK_THROWS_AS(ops::dropout(x, 1.0f, true), InvalidArgument);
  CHECK_THROWS_AS(ops::dropout(x, std::numeric_limits<float>::quiet_NaN(), true), InvalidArgument);
  CHECK_THROWS_AS(ops::dropout(Tensor::zeros({3}, DType::Int32), 0.5f, true), InvalidArgument);
}
