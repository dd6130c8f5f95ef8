#include <doctest/doctest.h>

#include "core/autograd.hpp"
#include "tests/support/training_task.hpp"
#include "training/nn/gcn_conv.hpp"
#include "training/nn/sg_conv.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

std::vector<std::vector<float>> values_of(const Model& model) {
  std::vector<std::vector<float>> out;
  for (const Tensor& p : model.parameters()) out.push_back(p.to_vector<float>());
  return out;
}

// Records whether the forward pass it sits in builds a tape.
class TapeProbe : public Layer {
 public:
  Tensor forward(const GraphInput&, const Tensor& x) override {
    (grad_enabled_now = autograd::grad_enabled()) ? ++taped_calls : ++untaped_calls;
    input_requires_grad = x.requires_grad();
    return x;
  }
  bool grad_enabled_now = false;
  bool input_requires_grad = false;
  int taped_calls = 0;
  int untaped_calls = 0;
};

}  // namespace

TEST_CASE("GCN parameter groups decay only the first convolution") {
  const TinyTask task = tiny_task();
  Generator generator(0);
  const auto model = tiny_gcn(task, generator);
  const std::vector<ParameterGroup> groups = model->parameter_groups(5e-4f);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].weight_decay == 5e-4f);
  CHECK(groups[1].weight_decay == 0.0f);
  const auto named = model->named_parameters();
  REQUIRE(named.size() == 4);
  CHECK(named[0].first == "layers.1.weight");
  CHECK(groups[0].parameters.size() == 2);
  CHECK(groups[0].parameters[0].shares_storage_with(named[0].second));
  CHECK(groups[1].parameters[0].shares_storage_with(named[2].second));
}

TEST_CASE("training lowers the loss, learns the task, and is deterministic from the seed") {
  std::vector<std::vector<double>> losses;
  for (int repeat = 0; repeat < 2; ++repeat) {
    const TinyTask task = tiny_task();
    Generator generator(3);
    const auto model = tiny_gcn(task, generator);
    ops::AdamHyperparameters adam;
    adam.learning_rate = 0.05f;
    Adam optimizer(model->parameter_groups(5e-4f), adam);
    TrainerOptions options;
    options.epochs = 60;
    Trainer trainer(*model, optimizer, task.data, options);
    const TrainResult result = trainer.fit();
    REQUIRE(result.history.size() == 60);
    CHECK(result.history.back().train_loss < 0.8 * result.history.front().train_loss);
    CHECK(result.best.train.accuracy > 0.7);
    CHECK(result.best_epoch >= 1);
    CHECK(result.best.validation.accuracy == doctest::Approx(result.history[static_cast<std::size_t>(
                                                                 result.best_epoch - 1)].validation_accuracy));
    std::vector<double> run;
    for (const EpochRecord& r : result.history) run.push_back(r.train_loss);
    losses.push_back(run);
  }
  CHECK(losses[0] == losses[1]);
}

TEST_CASE("fit restores the parameters of the best validation epoch") {
  const TinyTask task = tiny_task();
  Generator generator(5);
  const auto model = tiny_gcn(task, generator);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.05f});
  TrainerOptions options;
  options.epochs = 30;
  Trainer trainer(*model, optimizer, task.data, options);
  trainer.fit();
  REQUIRE(trainer.state().best_parameters.size() == 4);
  std::vector<std::vector<float>> best;
  for (const Tensor& p : trainer.state().best_parameters) best.push_back(p.to_vector<float>());
  CHECK(values_of(*model) == best);
}

TEST_CASE("early stopping stops after `patience` epochs without improvement") {
  const TinyTask task = tiny_task();
  Generator generator(5);
  const auto model = tiny_gcn(task, generator);
  Adam optimizer(model->parameter_groups(0.0f), ops::AdamHyperparameters{0.0f});  // lr 0: never improves
  TrainerOptions options;
  options.epochs = 50;
  options.patience = 3;
  options.monitor = Monitor::ValidationLoss;
  Trainer trainer(*model, optimizer, task.data, options);
  const TrainResult result = trainer.fit();
  CHECK(result.stopped_early);
  CHECK(result.best_epoch == 1);
  CHECK(result.history.size() == 4);
  CHECK_THROWS_WITH_AS(trainer.run_epoch(), doctest::Contains("training is finished"), InvalidArgument);
}

TEST_CASE("the loss+accuracy monitor resets patience on either score and keeps an epoch only on both") {
  // (accuracy, loss) per epoch and the expected verdicts under Veličković et al.'s rule.
  struct Step {
    double accuracy, loss;
    bool improved, keep;
  };
  const std::vector<Step> steps{
      {0.50, 1.00, true, true},    // first epoch: best on both
      {0.60, 1.10, true, false},   // accuracy up, loss up: patience resets, not kept
      {0.55, 0.90, true, false},   // loss down, accuracy below 0.60: not kept
      {0.60, 0.90, true, true},    // ties on both count as best
      {0.59, 0.95, false, false},  // neither
  };
  TrainingState state;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    EpochRecord record;
    record.validation_accuracy = steps[i].accuracy;
    record.validation_loss = steps[i].loss;
    const EpochVerdict verdict = judge_epoch(Monitor::ValidationLossAndAccuracy, record, state);
    CHECK(verdict.improved == steps[i].improved);
    CHECK(verdict.keep == steps[i].keep);
  }
  CHECK(state.best_validation_accuracy == 0.60);
  CHECK(state.best_validation_loss == 0.90);

  TrainingState strict;  // the single-score monitors need a strict improvement
  EpochRecord record;
  record.validation_accuracy = 0.5;
  record.validation_loss = 1.0;
  CHECK(judge_epoch(Monitor::ValidationAccuracy, record, strict).keep);
  CHECK_FALSE(judge_epoch(Monitor::ValidationAccuracy, record, strict).improved);
  CHECK_FALSE(judge_epoch(Monitor::ValidationLoss, record, strict).improved);
}

TEST_CASE("evaluation runs in eval mode without building a tape, training steps build one") {
  const TinyTask task = tiny_task();
  Generator generator(1);
  auto probe = std::make_shared<TapeProbe>();
  auto layers = std::make_shared<Sequential>();
  layers->append(std::make_shared<GCNConv>(task.features, task.classes, generator)).append(probe);
  Model model("probe", layers, {});
  Adam optimizer(model.parameters(), ops::AdamHyperparameters{0.01f});
  TrainerOptions options;
  options.epochs = 2;
  Trainer trainer(model, optimizer, task.data, options);
  trainer.evaluate();
  CHECK(probe->untaped_calls == 1);
  CHECK(probe->taped_calls == 0);
  CHECK_FALSE(probe->input_requires_grad);
  CHECK(model.is_training());  // mode restored
  trainer.run_epoch();          // one step (taped) and one evaluation (untaped)
  CHECK(probe->taped_calls == 1);
  CHECK(probe->untaped_calls == 2);
}

TEST_CASE("the trainer rejects inconsistent data with a message naming the problem") {
  const TinyTask task = tiny_task();
  Generator generator(1);
  const auto model = tiny_gcn(task, generator);
  Adam optimizer(model->parameters());
  TrainingData short_labels = task.data;
  short_labels.labels = task.data.labels.narrow_rows(0, 10);
  CHECK_THROWS_WITH_AS(Trainer(*model, optimizer, short_labels, {}), doctest::Contains("10 labels for 90 nodes"),
                       InvalidArgument);
  TrainingData no_train = task.data;
  no_train.train_index = Tensor();
  CHECK_THROWS_WITH_AS(Trainer(*model, optimizer, no_train, {}), doctest::Contains("train_index split is required"),
                       InvalidArgument);
  TrainingData int64_index = task.data;
  int64_index.valid_index = Tensor::zeros({3}, DType::Int64);
  CHECK_THROWS_AS(Trainer(*model, optimizer, int64_index, {}), InvalidArgument);
  TrainerOptions zero_epochs;
  zero_epochs.epochs = 0;
  CHECK_THROWS_WITH_AS(Trainer(*model, optimizer, task.data, zero_epochs), doctest::Contains("epochs must be"),
                       InvalidArgument);
}

TEST_CASE("median of even and odd lists") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0);
}

TEST_CASE("a model that computes the training rows alone (SGConv) trains as one that computes every row") {
  TinyTask task = tiny_task();
  // Training rows out of order and not a prefix of the nodes, so that rows
  // taken by position instead of by id would train on other nodes.
  std::vector<int32_t> rows;
  for (int32_t r = 89; r >= 30; r -= 2) rows.push_back(r);
  task.data.train_index = Tensor::from_vector(rows, {static_cast<int64_t>(rows.size())});
  // The same SGConv weights; behind a pass-through layer, which computes every
  // row, the trainer takes the loss's rows from the whole forward instead.
  std::vector<std::vector<double>> losses;
  std::vector<std::vector<std::vector<float>>> weights;
  for (const bool alone : {true, false}) {
    Generator generator(5);
    auto layers = std::make_shared<Sequential>();
    layers->append(std::make_shared<SGConv>(task.features, task.classes, 2, generator));
    if (!alone) layers->append(std::make_shared<TapeProbe>());
    Model model("sgc", layers, {});
    CHECK(model.forward_rows_is_cheaper() == alone);
    ops::AdamHyperparameters adam;
    adam.learning_rate = 0.2f;
    Adam optimizer(model.parameter_groups(5e-3f), adam);
    TrainerOptions options;
    options.epochs = 30;
    Trainer trainer(model, optimizer, task.data, options);
    const TrainResult result = trainer.fit();
    std::vector<double> run;
    for (const EpochRecord& r : result.history) run.push_back(r.train_loss);
    losses.push_back(run);
    weights.push_back(values_of(model));
  }
  REQUIRE(losses[0].size() == 30);
  CHECK(losses[0].back() < 0.8 * losses[0].front());  // it learns
  for (std::size_t epoch = 0; epoch < losses[0].size(); ++epoch) {
    CAPTURE(epoch);
    CHECK(losses[0][epoch] == doctest::Approx(losses[1][epoch]).epsilon(1e-5));
  }
  for (std::size_t p = 0; p < weights[0].size(); ++p) {
    for (std::size_t i = 0; i < weights[0][p].size(); ++i) {
      CHECK(weights[0][p][i] == doctest::Approx(weights[1][p][i]).epsilon(1e-4));
    }
  }
}
