#include <doctest/doctest.h>

#include <cmath>

#include "ops/normalization.hpp"
#include "tests/support/dense_checks.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

constexpr float kEps = 1e-5f;

struct Parameters {
  Tensor weight, bias;
};

Parameters affine(int64_t features, uint64_t seed) {
  return {random_tensor({features}, seed, 0.5, 1.5).set_requires_grad(true),
          random_tensor({features}, seed + 1).set_requires_grad(true)};
}

// Rows not a multiple of 4, one channel, 1-sized axes, and values offset from 0.
const Shape kShapes[] = {{2, 1}, {7, 3}, {67, 5}, {130, 33}};

// Float evaluation against float64: each element within (group size + 16)·e
// of its magnitude (tests/support/dense_checks.hpp): x − mean cancels when
// the values of a group are close, which a relative norm cannot allow for.
bool within_float(const Tensor& got, const std::vector<double>& reference, const std::vector<double>& magnitude,
                  int64_t group) {
  std::vector<double> bound(magnitude.size());
  for (std::size_t i = 0; i < bound.size(); ++i) {
    bound[i] = static_cast<double>(group + 16) * kFloatUnitRoundoff * magnitude[i];
  }
  return worst_bound_ratio(got, reference, bound) <= 1.0;
}

Tensor offset_inputs(const Shape& shape, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, -2.0, 2.0);
  float* data = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) data[i] += static_cast<float>(i % shape.back() % 3) - 1.0f;
  return x;
}

}  // namespace

TEST_CASE("batch_norm in training matches float64 batch statistics and moves the running ones") {
  for (const Shape& shape : kShapes) {
    CAPTURE(shape_str(shape));
    const int64_t channels = shape[1];
    for (bool with_affine : {true, false}) {
      const Tensor x = offset_inputs(shape, 1);
      const Parameters p = with_affine ? affine(channels, 2) : Parameters{};
      const Tensor mean0 = random_tensor({channels}, 4), var0 = random_tensor({channels}, 5, 0.5, 2.0);
      const ops::RunningStatistics running{mean0.clone(), var0.clone(), Tensor::zeros({}, DType::Int64)};
      const Tensor y = ops::batch_norm(x, p.weight, p.bias, running, true);
      const NormalizationReference reference =
          normalization_reference(to_double(x), shape[0], channels, false, {}, {},
                                  with_affine ? to_double(p.weight) : std::vector<double>{},
                                  with_affine ? to_double(p.bias) : std::vector<double>{}, to_double(x), kEps);
      CHECK(y.shape() == shape);
      CHECK(within_float(y, reference.y, reference.y_magnitude, reference.group_size));
      std::vector<double> expected_mean, expected_var;
      const std::vector<double> m0 = to_double(mean0), v0 = to_double(var0);
      for (std::size_t c = 0; c < m0.size(); ++c) {
        expected_mean.push_back(0.9 * m0[c] + 0.1 * reference.mean[c]);
        expected_var.push_back(0.9 * v0[c] + 0.1 * reference.unbiased_variance[c]);
      }
      CHECK(relative_error(running.mean, expected_mean) < 1e-6);
      CHECK(relative_error(running.variance, expected_var) < 1e-6);
      CHECK(running.batches.item() == 1.0);
      (void)ops::batch_norm(x, p.weight, p.bias, running, true, 0.5f);
      CHECK(running.batches.item() == 2.0);
    }
  }
}

TEST_CASE("batch_norm in evaluation normalises with the running statistics and updates nothing") {
  for (const Shape& shape : {Shape{7, 3}, Shape{0, 3}, Shape{1, 4}}) {
    CAPTURE(shape_str(shape));
    const int64_t channels = shape[1];
    const Tensor x = offset_inputs(shape, 6);
    const Parameters p = affine(channels, 7);
    const ops::RunningStatistics running{random_tensor({channels}, 8), random_tensor({channels}, 9, 0.5, 2.0),
                                         Tensor::zeros({}, DType::Int64)};
    const std::vector<double> mean = to_double(running.mean), variance = to_double(running.variance);
    const Tensor y = ops::batch_norm(x, p.weight, p.bias, running, false);
    const NormalizationReference reference = normalization_reference(
        to_double(x), shape[0], channels, false, mean, variance, to_double(p.weight), to_double(p.bias), to_double(x), kEps);
    CHECK(y.shape() == shape);
    CHECK(within_float(y, reference.y, reference.y_magnitude, 1));
    CHECK(to_double(running.mean) == mean);
    CHECK(to_double(running.variance) == variance);
    CHECK(running.batches.item() == 0.0);
  }
}

TEST_CASE("batch_norm gradients match float64 references and finite differences, training and evaluation") {
  for (const Shape& shape : kShapes) {
    CAPTURE(shape_str(shape));
    const int64_t channels = shape[1];
    for (bool training : {true, false}) {
      CAPTURE(training);
      Tensor x = offset_inputs(shape, 10).set_requires_grad(true);
      const Parameters p = affine(channels, 11);
      const ops::RunningStatistics running{random_tensor({channels}, 12), random_tensor({channels}, 13, 0.5, 2.0), {}};
      const std::vector<double> mean = to_double(running.mean), variance = to_double(running.variance);
      const Tensor y = ops::batch_norm(x, p.weight, p.bias, running, training);
      const Tensor g = random_tensor(shape, 14);
      y.backward(g);
      const NormalizationReference reference = normalization_reference(
          to_double(x), shape[0], channels, false, training ? std::vector<double>{} : mean,
          training ? std::vector<double>{} : variance, to_double(p.weight), to_double(p.bias), to_double(g), kEps);
      const int64_t group = reference.group_size;
      CHECK(within_float(x.grad(), reference.grad_x, reference.grad_x_magnitude, group));
      CHECK(within_float(p.weight.grad(), reference.grad_weight, reference.grad_weight_magnitude, group * shape[0]));
      CHECK(within_float(p.bias.grad(), reference.grad_bias, reference.grad_bias_magnitude, shape[0]));
      // Evaluation on fixed statistics; training through the batch statistics. Two
      // rows normalise to ±1 whatever x is: a gradient too small for finite differences.
      if (shape[0] < 3) continue;
      const ops::RunningStatistics fixed{running.mean.clone(), running.variance.clone(), {}};
      CHECK(gradient_error(
                [&](const std::vector<Tensor>& in) {
                  return ops::batch_norm(in[0], in[1], in[2], training ? ops::RunningStatistics{} : fixed, training);
                },
                {x, p.weight, p.bias}) < 1e-2);
    }
  }
}

TEST_CASE("layer_norm matches float64 references over the last axis, with and without affine parameters") {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 3}, Shape{5, 2, 33}, Shape{0, 4}, Shape{9}}) {
    CAPTURE(shape_str(shape));
    const int64_t features = shape.back();
    const int64_t rows = shape_numel(shape) / features;
    for (bool with_affine : {true, false}) {
      Tensor x = offset_inputs(shape, 15).set_requires_grad(true);
      const Parameters p = with_affine ? affine(features, 16) : Parameters{};
      const Tensor y = ops::layer_norm(x, p.weight, p.bias);
      const Tensor g = random_tensor(shape, 17);
      y.backward(g);
      const NormalizationReference reference =
          normalization_reference(to_double(x), rows, features, true, {}, {},
                                  with_affine ? to_double(p.weight) : std::vector<double>{},
                                  with_affine ? to_double(p.bias) : std::vector<double>{}, to_double(g), kEps);
      CHECK(y.shape() == shape);
      CHECK(within_float(y, reference.y, reference.y_magnitude, features));
      CHECK(within_float(x.grad(), reference.grad_x, reference.grad_x_magnitude, features));
      if (with_affine) {
        CHECK(within_float(p.weight.grad(), reference.grad_weight, reference.grad_weight_magnitude, features * rows));
        CHECK(within_float(p.bias.grad(), reference.grad_bias, reference.grad_bias_magnitude, rows));
      }
    }
  }
}

TEST_CASE("layer_norm gradients match finite differences") {
  for (const Shape& shape : {Shape{1, 3}, Shape{7, 3}, Shape{3, 2, 6}}) {
    CAPTURE(shape_str(shape));
    Tensor x = offset_inputs(shape, 18).set_requires_grad(true);
    const Parameters p = affine(shape.back(), 19);
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::layer_norm(in[0], in[1], in[2]); },
                         {x, p.weight, p.bias}) < 1e-2);
  }
}

TEST_CASE("a constant row or column normalises to the bias, with finite gradients") {
  Tensor x = Tensor::full({4, 3}, 2.5).set_requires_grad(true);
  const Parameters p = affine(3, 20);
  const Tensor y = ops::batch_norm(x, p.weight, p.bias, {}, true);
  CHECK(relative_error(y, to_double(ops::batch_norm(Tensor::zeros({4, 3}), p.weight, p.bias, {}, true))) == 0.0);
  y.backward(random_tensor({4, 3}, 21));
  for (float v : x.grad().to_vector<float>()) CHECK(std::isfinite(v));
  CHECK(relative_error(ops::layer_norm(Tensor::full({2, 5}, -1.0), Tensor(), Tensor()), std::vector<double>(10, 0.0)) == 0.0);
}

TEST_CASE("BF16 batch_norm and layer_norm: float statistics, bfloat16 outputs, float32 parameter gradients") {
  for (const Shape& shape : {Shape{67, 5}, Shape{300, 40}}) {
    CAPTURE(shape_str(shape));
    CHECK(bf16::normalization_error(Device::cpu(), false, true, shape[0], shape[1]) <= 1.0);
    CHECK(bf16::normalization_error(Device::cpu(), false, false, shape[0], shape[1]) <= 1.0);
    CHECK(bf16::normalization_error(Device::cpu(), true, true, shape[0], shape[1]) <= 1.0);
  }
}

TEST_CASE("normalisations refuse bad arguments, naming the op, the argument and the shapes") {
  const Tensor x = Tensor::zeros({4, 3});
  const Parameters p = affine(3, 22);
  const ops::RunningStatistics running{Tensor::zeros({3}), Tensor::full({3}, 1.0), {}};
  CHECK_THROWS_WITH_AS(ops::batch_norm(Tensor::zeros({4}), Tensor(), Tensor(), running, true),
                       doctest::Contains("batch_norm: argument 'x' must be [N, C], got shape [4]"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(Tensor::zeros({1, 3}), p.weight, p.bias, running, true),
                       doctest::Contains("batch_norm: training needs at least 2 rows per channel (x of shape [1, 3]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, Tensor::zeros({4}), Tensor::zeros({4}), running, true),
                       doctest::Contains("batch_norm: argument 'weight' must have shape [3] for x of shape [4, 3], got [4]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, p.weight, Tensor(), running, true),
                       doctest::Contains("batch_norm: arguments 'weight' and 'bias' must both be given"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, Tensor::zeros({3}, DType::BFloat16), p.bias, running, true),
                       doctest::Contains("batch_norm: argument 'weight' must be float32, got bfloat16"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, p.weight, p.bias, {Tensor::zeros({2}), Tensor::zeros({2}), {}}, true),
                       doctest::Contains("batch_norm: argument 'running mean' must have shape [3] for x of shape [4, 3], got [2]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, p.weight, p.bias, {}, false),
                       doctest::Contains("batch_norm: evaluation (training false) normalises with the running mean"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, p.weight, p.bias, running, true, 1.5f),
                       doctest::Contains("batch_norm: argument 'momentum' must be in [0, 1], got 1.5"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, p.weight, p.bias, running, true, 0.1f, 0.0f),
                       doctest::Contains("batch_norm: argument 'eps' must be positive"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::batch_norm(Tensor::zeros({4, 3}, DType::Int32), p.weight, p.bias, running, true),
                       doctest::Contains("batch_norm: argument 'x' must be float32 or bfloat16, got int32"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::layer_norm(Tensor::zeros({4, 0}), Tensor(), Tensor()),
                       doctest::Contains("layer_norm: argument 'x' must have a last axis of at least 1 element, got shape [4, 0]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::layer_norm(x, Tensor::zeros({4}), Tensor::zeros({4})),
                       doctest::Contains("layer_norm: argument 'weight' must have shape [3] for x of shape [4, 3], got [4]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::layer_norm(Tensor(), Tensor(), Tensor()),
                       doctest::Contains("layer_norm: argument 'x' is an undefined tensor"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::layer_norm(x, p.weight, p.bias, -1.0f), doctest::Contains("layer_norm: argument 'eps'"),
                       InvalidArgument);
}
