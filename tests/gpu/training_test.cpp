#include <doctest/doctest.h>

#include "core/memory.hpp"
#include "ops/loss.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"
#include "tests/support/training_task.hpp"
#include "training/nn/models.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

std::shared_ptr<Model> build(bool gat, const TinyTask& task, Generator& generator) {
  return gat ? tiny_gat(task, generator) : tiny_gcn(task, generator);
}

}  // namespace

TEST_CASE("GCN and GAT: first-epoch loss and gradients on the GPU match the CPU, and so do the next epochs' losses") {
  for (const bool gat : {false, true}) {
    CAPTURE(gat);
    const TinyTask cpu_task = tiny_task(1, Device::cpu());
    const TinyTask gpu_task = tiny_task(1, kGpu);
    Generator cpu_generator(11), gpu_generator(11);
    const auto cpu_model = build(gat, cpu_task, cpu_generator);
    const auto gpu_model = build(gat, gpu_task, gpu_generator);
    gpu_model->to(kGpu);
    REQUIRE(gpu_model->device() == kGpu);

    // One training-mode forward/backward: same weights and the same dropout masks on both devices.
    const Tensor cpu_loss = ops::cross_entropy(cpu_model->forward(cpu_task.data.graph, cpu_task.data.features),
                                               cpu_task.data.labels, cpu_task.data.train_index);
    const Tensor gpu_loss = ops::cross_entropy(gpu_model->forward(gpu_task.data.graph, gpu_task.data.features),
                                               gpu_task.data.labels, gpu_task.data.train_index);
    cpu_loss.backward();
    gpu_loss.backward();
    CHECK(gpu_loss.device() == kGpu);
    CHECK(relative_error(gpu_loss, cpu_loss) < 1e-5);
    const auto cpu_parameters = cpu_model->named_parameters();
    const auto gpu_parameters = gpu_model->named_parameters();
    REQUIRE(cpu_parameters.size() == gpu_parameters.size());
    for (std::size_t i = 0; i < cpu_parameters.size(); ++i) {
      CAPTURE(cpu_parameters[i].first);
      REQUIRE(gpu_parameters[i].second.grad().defined());
      CHECK(gpu_parameters[i].second.grad().device() == kGpu);
      CHECK(relative_error(gpu_parameters[i].second.grad(), cpu_parameters[i].second.grad()) < 1e-4);
    }
    CHECK(cpu_generator.offset() == gpu_generator.offset());

    // Then a few full epochs through the trainer (optimizer steps on the device).
    Adam cpu_optimizer(cpu_model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
    Adam gpu_optimizer(gpu_model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
    TrainerOptions options;
    options.epochs = 3;
    Trainer cpu_trainer(*cpu_model, cpu_optimizer, cpu_task.data, options);
    Trainer gpu_trainer(*gpu_model, gpu_optimizer, gpu_task.data, options);
    const TrainResult cpu_result = cpu_trainer.fit();
    const TrainResult gpu_result = gpu_trainer.fit();
    for (std::size_t epoch = 0; epoch < 3; ++epoch) {
      CAPTURE(epoch);
      CHECK(gpu_result.history[epoch].train_loss ==
            doctest::Approx(cpu_result.history[epoch].train_loss).epsilon(1e-4));
      CHECK(gpu_result.history[epoch].validation_loss ==
            doctest::Approx(cpu_result.history[epoch].validation_loss).epsilon(1e-4));
    }
    CHECK(gpu_result.best.test.accuracy == doctest::Approx(cpu_result.best.test.accuracy).epsilon(0.05));
    CHECK(memory::usage(kGpu).peak_bytes > 0);
  }
}
