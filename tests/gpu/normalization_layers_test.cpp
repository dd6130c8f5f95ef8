// BatchNorm1d and LayerNorm on the GPU: to() moves the buffers, the running
// statistics move on the device as on the CPU, a captured training step
// (CUDA Graph replay) updates them as the eager one does, and a checkpoint
// written from the GPU reloads to the same evaluation output bit for bit.
#include <doctest/doctest.h>

#include <filesystem>
#include <unistd.h>

#include "tests/support/gpu_testing.hpp"
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
  Run(const TinyTask& task, uint64_t seed, StepCapture capture)
      : generator(seed), model(build(task, generator)),
        optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.02f}),
        trainer(*model, optimizer, task.data, options(capture)) {}
  static std::shared_ptr<Model> build(const TinyTask& task, Generator& generator) {
    auto model = normalized_model(task, generator);
    model->to(kGpu);
    return model;
  }
  static TrainerOptions options(StepCapture capture) {
    TrainerOptions o;
    o.epochs = 8;
    o.restore_best = false;
    o.capture_step = capture;
    return o;
  }
  Generator generator;
  std::shared_ptr<Model> model;
  Adam optimizer;
  Trainer trainer;
};

}  // namespace

TEST_CASE("GPU BatchNorm1d: to() moves its buffers; the running statistics move as on the CPU") {
  BatchNorm1d cpu(33), gpu(33);
  gpu.to(kGpu);
  for (const auto& [name, buffer] : gpu.named_buffers()) {
    CAPTURE(name);
    CHECK(buffer.device() == kGpu);
  }
  for (int step = 0; step < 3; ++step) {
    const Tensor x = random_tensor({1000, 33}, static_cast<uint64_t>(step), -2.0, 4.0);
    CHECK(relative_error(gpu.forward(x.to(kGpu)).to(Device::cpu()), cpu.forward(x)) < 1e-4);
  }
  CHECK(relative_error(gpu.running_mean().to(Device::cpu()), cpu.running_mean()) < 1e-5);
  CHECK(relative_error(gpu.running_var().to(Device::cpu()), cpu.running_var()) < 1e-5);
  CHECK(gpu.num_batches_tracked().item() == 3.0);
  cpu.eval();
  gpu.eval();
  const Tensor x = random_tensor({77, 33}, 9);
  CHECK(relative_error(gpu.forward(x.to(kGpu)).to(Device::cpu()), cpu.forward(x)) < 1e-5);
  gpu.to(Device::cpu());
  CHECK(gpu.running_mean().device() == Device::cpu());
  BatchNorm1d plain(4, 1e-5f, 0.1f, false);  // no parameters: the buffers say where it lives
  plain.to(kGpu);
  CHECK(plain.device() == kGpu);
}

TEST_CASE("GPU training with BatchNorm and LayerNorm replayed from a CUDA Graph equals eager training, buffers included") {
  const TinyTask task = tiny_task(3, kGpu);
  Run eager(task, 29, StepCapture::Off);
  Run replayed(task, 29, StepCapture::On);
  const TrainResult a = eager.trainer.fit();
  const TrainResult b = replayed.trainer.fit();
  CHECK(replayed.trainer.step_captured());
  REQUIRE(a.history.size() == b.history.size());
  for (std::size_t epoch = 0; epoch < a.history.size(); ++epoch) {
    CAPTURE(epoch);
    CHECK(b.history[epoch].train_loss == doctest::Approx(a.history[epoch].train_loss).epsilon(1e-6));
    CHECK(b.history[epoch].validation_loss == doctest::Approx(a.history[epoch].validation_loss).epsilon(1e-6));
  }
  const auto eager_buffers = eager.model->named_buffers(), replayed_buffers = replayed.model->named_buffers();
  REQUIRE(eager_buffers.size() == 3);
  CHECK(to_double(replayed_buffers[2].second.to(Device::cpu())) == std::vector<double>{8.0});
  for (std::size_t i = 0; i < eager_buffers.size(); ++i) {
    CAPTURE(eager_buffers[i].first);
    CHECK(relative_error(replayed_buffers[i].second.to(Device::cpu()), eager_buffers[i].second.to(Device::cpu())) <=
          1e-6);
  }
}

TEST_CASE("GPU model with BatchNorm: a checkpoint written from the GPU reloads to the same evaluation output, bit for bit") {
  const TinyTask task = tiny_task(3, kGpu);
  const fs::path directory = fs::temp_directory_path() / ("sgnn_gpu_normalization_" + std::to_string(getpid()));
  fs::create_directories(directory);
  const fs::path path = directory / "model.ckpt";
  auto evaluate = [&](Model& model) {
    model.eval();
    return model.forward(task.data.graph, task.data.features).to(Device::cpu()).to_vector<float>();
  };
  std::vector<float> expected;
  {
    Run run(task, 5, StepCapture::Off);
    for (int epoch = 0; epoch < 5; ++epoch) run.trainer.run_epoch();
    save_checkpoint(path, *run.model, run.optimizer, run.trainer.state(), run.generator);
    expected = evaluate(*run.model);
  }
  Run reloaded(task, 77, StepCapture::Off);
  load_checkpoint(path, *reloaded.model, reloaded.optimizer, reloaded.trainer, reloaded.generator);
  CHECK(reloaded.model->named_buffers().front().second.device() == kGpu);
  CHECK(evaluate(*reloaded.model) == expected);
  fs::remove_all(directory);
}
