// NaN/Inf faults: the always-on loss check, the opt-in numerics check mode
// (op, direction, layer and epoch in the message) and find_nonfinite itself.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ops/elementwise.hpp"
#include "ops/nonfinite_check.hpp"
#include "ops/reduce.hpp"
#include "tests/support/training_task.hpp"
#include "training/numerics_check.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct TinyRun {
  TinyTask task = tiny_task();
  Generator generator{5};
  std::shared_ptr<Model> model = tiny_gcn(task, generator);
  Adam optimizer{model->parameter_groups(5e-4f), ops::AdamHyperparameters{}};
  Trainer trainer{*model, optimizer, task.data, TrainerOptions{}};
};

Tensor parameter(const Model& model, const std::string& name) {
  for (const auto& [parameter_name, value] : model.named_parameters()) {
    if (parameter_name == name) return value;
  }
  FAIL("no parameter " << name);
  return {};
}

// NaN in every feature of the first 5 nodes (all 40 values: dropout cannot
// zero them all). The trainer's data shares the storage.
void plant_nan_rows(const Tensor& features) {
  float* values = features.data<float>();
  for (int64_t i = 0; i < 5 * features.size(1); ++i) values[i] = kNaN;
}

// Inf in every entry of the named parameter.
void plant_inf(const Model& model, const std::string& name) {
  const Tensor weight = parameter(model, name);
  float* values = weight.data<float>();
  for (int64_t i = 0; i < weight.numel(); ++i) values[i] = kInf;
}

}  // namespace

TEST_CASE("find_nonfinite counts NaN and Inf and finds the first; require_finite names it") {
  std::vector<float> values(100000, 1.5f);  // above the OpenMP threshold
  CHECK(ops::find_nonfinite(Tensor::from_vector(values, {1000, 100})).all_finite());
  values[70001] = -kInf;
  values[99999] = kNaN;
  values[70000] = kInf;
  const Tensor x = Tensor::from_vector(values, {1000, 100});
  const ops::NonfiniteReport report = ops::find_nonfinite(x);
  CHECK(report.count == 3);
  CHECK(report.first_index == 70000);
  CHECK(std::isinf(report.first_value));
  CHECK_THROWS_WITH_AS(ops::require_finite(x, "probe"),
                       doctest::Contains("probe: 3 of 100000 values are NaN or Inf (the first, at flat index 70000 "
                                         "of shape [1000, 100], is inf)"),
                       NumericalError);
  CHECK(ops::find_nonfinite(Tensor::from_vector(std::vector<int32_t>{1, 2}, {2})).all_finite());
  CHECK(ops::find_nonfinite(Tensor::empty({0, 4})).all_finite());
}

TEST_CASE("check mode names the op of a non-finite forward output and is off by default") {
  Tensor a = Tensor::from_vector(std::vector<float>{1.0f, kNaN, 3.0f}, {3}).set_requires_grad(true);
  const Tensor b = Tensor::from_vector(std::vector<float>{1.0f, 1.0f, 1.0f}, {3});
  CHECK_FALSE(check_numerics());
  CHECK(std::isnan(ops::sum(ops::mul(a, b)).item()));  // off: the NaN flows through silently
  CheckNumericsScope check(true);
  CHECK(check_numerics());
  CHECK_THROWS_WITH_AS(ops::mul(a, b), doctest::Contains("op 'mul' forward: the output: 1 of 3 values"),
                       NumericalError);
}

TEST_CASE("check mode names the op whose backward overflows, and the input") {
  // Forward 10 · 3e38 · 1e-30 = 3e9 is finite; the gradient of `small` is 10 · 3e38 = inf.
  Tensor small = Tensor::from_vector(std::vector<float>{1e-30f}, {1}).set_requires_grad(true);
  const Tensor huge = Tensor::from_vector(std::vector<float>{3e38f}, {1});
  {
    CheckNumericsScope check(true);
    const Tensor loss = ops::sum(ops::scale(ops::mul(small, huge), 10.0f));
    CHECK(loss.item() == doctest::Approx(3e9));
    CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("op 'mul' backward: the gradient of input 0: 1 of 1"),
                         NumericalError);
  }
  CHECK_FALSE(check_numerics());  // the scope restored the default
  const Tensor loss = ops::sum(ops::scale(ops::mul(small, huge), 10.0f));
  loss.backward();
  CHECK(std::isinf(small.grad().item()));
}

TEST_CASE("a NaN training loss stops training with the epoch, always on") {
  TinyRun run;
  run.trainer.run_epoch();
  run.trainer.run_epoch();
  // A NaN in the features alone does not reach this loss: ReLU maps NaN to 0
  // (x > 0 is false), and the check mode below is what finds it. A NaN in the
  // output layer's bias does.
  plant_nan_rows(run.task.data.features);
  run.trainer.run_epoch();
  parameter(*run.model, "layers.4.bias").data<float>()[1] = kNaN;
  CHECK_THROWS_WITH_AS(run.trainer.run_epoch(), doctest::Contains("epoch 4: the training loss is nan"),
                       NumericalError);
}

TEST_CASE("check mode: a NaN feature names the epoch, the first layer and the op") {
  TinyRun run;
  CheckNumericsScope check(true);
  run.trainer.run_epoch();  // finite data: the checks pass
  plant_nan_rows(run.task.data.features);
  CHECK_THROWS_WITH_AS(run.trainer.run_epoch(),
                       doctest::Contains("epoch 2: layer layers.1, op 'matmul' forward: the output"),
                       NumericalError);
}

TEST_CASE("check mode: an Inf planted in the second layer's weight names that layer") {
  TinyRun run;
  plant_inf(*run.model, "layers.4.weight");
  {
    CheckNumericsScope check(true);
    CHECK_THROWS_WITH_AS(run.trainer.run_epoch(), doctest::Contains("epoch 1: layer layers.4, op '"),
                         NumericalError);
  }
  TinyRun unchecked;
  plant_inf(*unchecked.model, "layers.4.weight");
  CHECK_THROWS_WITH_AS(unchecked.trainer.run_epoch(), doctest::Contains("epoch 1: the training loss is"),
                       NumericalError);
}
