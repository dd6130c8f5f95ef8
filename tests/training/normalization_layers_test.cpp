#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "ops/normalization.hpp"
#include "tests/support/normalized_model.hpp"
#include "tests/support/testing.hpp"
#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"
#include "training/nn/linear.hpp"
#include "training/nn/normalization_layers.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;
namespace fs = std::filesystem;

namespace {

struct Run {
  Run(const TinyTask& task, uint64_t seed)
      : generator(seed), model(normalized_model(task, generator)),
        optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f}),
        trainer(*model, optimizer, task.data, options()) {}
  static TrainerOptions options() {
    TrainerOptions o;
    o.epochs = 12;
    return o;
  }
  Generator generator;
  std::shared_ptr<Model> model;
  Adam optimizer;
  Trainer trainer;
};

fs::path scratch(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / ("sgnn_normalization_test_" + std::to_string(getpid()));
  fs::create_directories(directory);
  return directory / name;
}

std::vector<float> evaluation_output(Model& model, const TinyTask& task) {
  model.eval();
  return model.forward(task.data.graph, task.data.features).to_vector<float>();
}

}  // namespace

TEST_CASE("buffers are listed with dotted names, apart from parameters, and share the layer's storage") {
  Sequential layers;
  Generator generator(1);
  layers.append(std::make_shared<Linear>(4, 3, generator));
  auto norm = std::make_shared<BatchNorm1d>(3);
  layers.append(norm);
  const auto buffers = layers.named_buffers();
  REQUIRE(buffers.size() == 3);
  CHECK(buffers[0].first == "1.running_mean");
  CHECK(buffers[1].first == "1.running_var");
  CHECK(buffers[2].first == "1.num_batches_tracked");
  CHECK(buffers[0].second.shares_storage_with(norm->running_mean()));
  CHECK(buffers[2].second.dtype() == DType::Int64);
  for (const auto& [name, buffer] : buffers) CHECK_FALSE(buffer.requires_grad());
  const auto parameters = layers.named_parameters();
  CHECK(parameters.size() == 4);  // the linear's weight and bias, the norm's weight and bias
  CHECK(parameters[2].first == "1.weight");
  layers.set_precision(Precision::Bf16);  // parameters get compute copies, buffers none
  CHECK(norm->running_mean().dtype() == DType::Float32);
  CHECK(layers.compute_copies().size() == 4);
}

TEST_CASE("buffer names may not repeat a parameter's, a buffer's or a submodule's") {
  class Clash : public Module {
   public:
    explicit Clash(const char* buffer_name) : a_(Tensor::zeros({1})), b_(Tensor::zeros({1})), c_(Tensor::zeros({1})) {
      register_parameter("a", a_);
      register_buffer("b", b_);
      register_buffer(buffer_name, c_);
    }
    Tensor a_, b_, c_;
  };
  CHECK_THROWS_WITH_AS(Clash("a"), doctest::Contains("\"a\" is already a parameter"), InvalidArgument);
  CHECK_THROWS_WITH_AS(Clash("b"), doctest::Contains("\"b\" is already a buffer"), InvalidArgument);
  CHECK_THROWS_WITH_AS(Clash("x.y"), doctest::Contains("must be non-empty and contain no '.'"), InvalidArgument);
  CHECK_NOTHROW(Clash("c"));
}

TEST_CASE("BatchNorm1d uses batch statistics in training, running statistics in evaluation") {
  BatchNorm1d norm(5, 1e-5f, 0.2f);
  const Tensor x = random_tensor({9, 5}, 2, -3.0, 3.0);
  const Tensor trained = norm.forward(x);
  CHECK(relative_error(trained, ops::batch_norm(x, norm.weight(), norm.bias(), {}, true)) == 0.0);
  CHECK(norm.num_batches_tracked().item() == 1.0);
  const std::vector<float> running_mean = norm.running_mean().to_vector<float>();
  CHECK(running_mean != std::vector<float>(5, 0.0f));
  norm.eval();
  const ops::RunningStatistics copy{norm.running_mean().clone(), norm.running_var().clone(), {}};
  CHECK(relative_error(norm.forward(x), ops::batch_norm(x, norm.weight(), norm.bias(), copy, false)) == 0.0);
  CHECK(norm.running_mean().to_vector<float>() == running_mean);  // evaluation updates nothing
  CHECK(norm.num_batches_tracked().item() == 1.0);

  LayerNorm layer(5);
  CHECK(relative_error(layer.forward(x), ops::layer_norm(x, layer.weight(), layer.bias())) == 0.0);
  LayerNorm plain(5, 1e-3f, false);
  CHECK(plain.parameters().empty());
  CHECK(relative_error(plain.forward(x), ops::layer_norm(x, Tensor(), Tensor(), 1e-3f)) == 0.0);
}

TEST_CASE("normalisation layers refuse bad sizes and inputs, naming the layer") {
  CHECK_THROWS_WITH_AS(BatchNorm1d(0), doctest::Contains("BatchNorm1d: features must be positive"), InvalidArgument);
  CHECK_THROWS_WITH_AS(BatchNorm1d(4, 1e-5f, 2.0f), doctest::Contains("BatchNorm1d: momentum must be in [0, 1]"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(LayerNorm(4, 0.0f), doctest::Contains("LayerNorm: eps must be positive"), InvalidArgument);
  BatchNorm1d norm(4);
  CHECK_THROWS_WITH_AS(norm.forward(Tensor::zeros({3, 5})), doctest::Contains("BatchNorm1d: x has 5 features per node"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(norm.forward(Tensor::zeros({1, 4})), doctest::Contains("batch_norm: training needs at least 2 rows"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(LayerNorm(4).forward(Tensor::zeros({3, 4}, DType::Int32)),
                       doctest::Contains("LayerNorm: argument 'x' must be float32 or bfloat16"), InvalidArgument);
}

TEST_CASE("a model with BatchNorm reloaded from its checkpoint gives the same evaluation output, bit for bit") {
  const TinyTask task = tiny_task();
  const fs::path path = scratch("normalized.ckpt");
  std::vector<float> expected;
  std::vector<std::pair<std::string, std::vector<double>>> buffers;
  {
    Run run(task, 5);
    for (int epoch = 0; epoch < 6; ++epoch) run.trainer.run_epoch();
    save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
    expected = evaluation_output(*run.model, task);
    for (const auto& [name, buffer] : run.model->named_buffers()) buffers.emplace_back(name, to_double(buffer));
  }
  CHECK(buffers.back().second == std::vector<double>{6.0});  // num_batches_tracked: one batch an epoch

  Run resumed(task, 999);  // other weights; fresh running statistics
  CHECK(evaluation_output(*resumed.model, task) != expected);
  load_checkpoint(path, *resumed.model, resumed.optimizer, resumed.trainer, resumed.generator);
  CHECK(evaluation_output(*resumed.model, task) == expected);
  const auto loaded = resumed.model->named_buffers();
  REQUIRE(loaded.size() == buffers.size());
  for (std::size_t i = 0; i < loaded.size(); ++i) CHECK(to_double(loaded[i].second) == buffers[i].second);
  fs::remove_all(path.parent_path());
}

TEST_CASE("a checkpoint whose buffers do not match the model is refused before anything changes") {
  const TinyTask task = tiny_task();
  const fs::path path = scratch("mismatch.ckpt");
  Run with_batch_norm(task, 6);
  with_batch_norm.trainer.run_epoch();
  save_checkpoint(path, *with_batch_norm.model, with_batch_norm.optimizer, with_batch_norm.trainer.state(),
                  with_batch_norm.generator);

  // The same parameter names and shapes (1.weight and 1.bias [16]), but LayerNorm has no buffers.
  Generator generator(7);
  auto layers = std::make_shared<Sequential>();
  layers->append(std::make_shared<Linear>(task.features, 16, generator));
  layers->append(std::make_shared<LayerNorm>(16));
  layers->append(std::make_shared<Relu>());
  layers->append(std::make_shared<Dropout>(0.3f, generator));
  layers->append(std::make_shared<Linear>(16, task.classes, generator));
  layers->append(std::make_shared<LayerNorm>(task.classes));
  Model without("normalized", layers, {});
  Adam optimizer(without.parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f});
  Trainer trainer(without, optimizer, task.data, Run::options());
  const std::vector<float> before = without.parameters().front().to_vector<float>();
  CHECK_THROWS_WITH_AS(load_checkpoint(path, without, optimizer, trainer, generator),
                       doctest::Contains("the checkpoint has 3 buffers, the model 0"), InvalidArgument);
  CHECK(without.parameters().front().to_vector<float>() == before);
  CHECK(trainer.state().epoch == 0);

  trainer.run_epoch();
  save_checkpoint(path, without, optimizer, trainer.state(), generator);
  CHECK_THROWS_WITH_AS(
      load_checkpoint(path, *with_batch_norm.model, with_batch_norm.optimizer, with_batch_norm.trainer,
                      with_batch_norm.generator),
      doctest::Contains("the checkpoint has 0 buffers, the model 3"), InvalidArgument);
  fs::remove_all(path.parent_path());
}

TEST_CASE("a bfloat16 model with BatchNorm and LayerNorm trains; its statistics and parameters stay float32") {
  const TinyTask task = tiny_task();
  Generator generator(8);
  const auto model = normalized_model(task, generator);
  model->set_precision(Precision::Bf16);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f});
  Trainer trainer(*model, optimizer, task.data, Run::options());
  const TrainResult result = trainer.fit();
  CHECK(std::isfinite(result.history.back().train_loss));
  CHECK(result.history.back().train_loss < result.history.front().train_loss);
  const auto buffers = model->named_buffers();
  CHECK(buffers[0].second.dtype() == DType::Float32);
  CHECK(to_double(buffers[0].second) != std::vector<double>(16, 0.0));
  // The best epoch's statistics are restored with its parameters: one training forward per epoch up to it.
  CHECK(to_double(buffers[2].second) == std::vector<double>{static_cast<double>(result.best_epoch)});
  model->eval();
  CHECK(model->forward(task.data.graph, task.data.features).dtype() == DType::BFloat16);
}
