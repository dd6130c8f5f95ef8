// CUDA Graph step capture: replayed training equals eager training (losses,
// parameters, optimizer state, generator offset), a failed capture falls back
// to eager and never leaves the stream capturing, and dropout masks advance
// across replays exactly as in eager mode.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include "core/cuda_graph.hpp"
#include "core/cuda_runtime.hpp"
#include "core/memory.hpp"
#include "ops/determinism.hpp"
#include "ops/dropout.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"
#include "tests/support/training_task.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/gcn_conv.hpp"
#include "training/nn/models.hpp"
#include "training/nn/module.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

bool stream_is_capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  REQUIRE(cudaStreamIsCapturing(cuda::stream(kGpu), &status) == cudaSuccess);
  return status != cudaStreamCaptureStatusNone;
}

// A layer that waits for the device: legal eagerly, forbidden while capturing.
class Synchronizing final : public Layer {
 public:
  Tensor forward(const GraphInput&, const Tensor& x) override {
    memory::synchronize(x.device());
    return x;
  }
};

std::shared_ptr<Model> build(int kind, const TinyTask& task, Generator& generator) {
  if (kind == 0) return tiny_gcn(task, generator);  // dropout 0.5
  if (kind == 1) return tiny_gat(task, generator);  // dropout 0.6 on features and attention
  auto layers = std::make_shared<Sequential>();
  layers->append(std::make_shared<Synchronizing>());
  layers->append(std::make_shared<Dropout>(0.5f, generator));
  layers->append(std::make_shared<GCNConv>(task.features, task.classes, generator));
  return std::make_shared<Model>("synchronizing", layers, std::vector<std::string>{});
}

struct Run {
  TrainResult result;
  std::vector<Tensor> parameters;  // host copies
  std::vector<Tensor> optimizer_state;
  uint64_t generator_offset = 0;
  int64_t step_count = 0;
  bool captured = false;
};

Run train(int kind, StepCapture capture, int64_t epochs) {
  const TinyTask task = tiny_task(3, kGpu);
  Generator generator(29);
  const auto model = build(kind, task, generator);
  model->to(kGpu);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
  TrainerOptions options;
  options.epochs = epochs;
  options.restore_best = false;  // compare the parameters of the last step
  options.capture_step = capture;
  Trainer trainer(*model, optimizer, task.data, options);
  Run run;
  run.result = trainer.fit();
  run.captured = trainer.step_captured();
  for (const Tensor& parameter : model->parameters()) run.parameters.push_back(parameter.to(Device::cpu()));
  run.optimizer_state = optimizer.state();
  run.generator_offset = generator.offset();
  run.step_count = optimizer.step_count();
  return run;
}

void check_same_training(const Run& eager, const Run& replayed, double tolerance) {
  REQUIRE(eager.result.history.size() == replayed.result.history.size());
  bool bitwise = true;
  for (std::size_t epoch = 0; epoch < eager.result.history.size(); ++epoch) {
    CAPTURE(epoch);
    const EpochRecord& a = eager.result.history[epoch];
    const EpochRecord& b = replayed.result.history[epoch];
    CHECK(b.train_loss == doctest::Approx(a.train_loss).epsilon(tolerance));
    CHECK(b.validation_loss == doctest::Approx(a.validation_loss).epsilon(tolerance));
    CHECK(b.validation_accuracy == a.validation_accuracy);
    bitwise = bitwise && a.train_loss == b.train_loss;
  }
  MESSAGE("training losses bit-identical: ", bitwise);
  REQUIRE(eager.parameters.size() == replayed.parameters.size());
  for (std::size_t i = 0; i < eager.parameters.size(); ++i) {
    CAPTURE(i);
    CHECK(relative_error(replayed.parameters[i], eager.parameters[i]) <= tolerance);
  }
  REQUIRE(eager.optimizer_state.size() == replayed.optimizer_state.size());
  for (std::size_t i = 0; i < eager.optimizer_state.size(); ++i) {
    CAPTURE(i);
    if (eager.optimizer_state[i].dtype() == DType::Int64) {
      CHECK(replayed.optimizer_state[i].to_vector<int64_t>() == eager.optimizer_state[i].to_vector<int64_t>());
    } else {
      CHECK(relative_error(replayed.optimizer_state[i], eager.optimizer_state[i]) <= tolerance);
    }
  }
  CHECK(replayed.generator_offset == eager.generator_offset);
  CHECK(replayed.step_count == eager.step_count);
}

}  // namespace

TEST_CASE("captured GCN and GAT training (dropout on) equals eager training epoch by epoch") {
  const ops::DeterministicScope deterministic(true);
  for (const int kind : {0, 1}) {
    CAPTURE(kind);
    const Run eager = train(kind, StepCapture::Off, 7);
    const Run replayed = train(kind, StepCapture::On, 7);
    CHECK_FALSE(eager.captured);
    CHECK(replayed.captured);
    CHECK(replayed.result.step_captured);
    check_same_training(eager, replayed, 1e-6);
    CHECK_FALSE(stream_is_capturing());
  }
}

TEST_CASE("Auto captures on the GPU for a small graph") {
  const Run automatic = train(0, StepCapture::Auto, 3);
  CHECK(automatic.captured);
}

TEST_CASE("a step that cannot be captured falls back to eager with the same results; the stream is not left capturing") {
  const ops::DeterministicScope deterministic(true);
  const Run eager = train(2, StepCapture::Off, 4);
  const Run fallback = train(2, StepCapture::On, 4);
  CHECK_FALSE(fallback.captured);
  CHECK_FALSE(fallback.result.step_captured);
  CHECK_FALSE(stream_is_capturing());
  check_same_training(eager, fallback, 1e-6);  // both eager
  // Eager work still runs on the stream afterwards.
  const Tensor x = random_tensor({8, 3}, 5).to(kGpu);
  CHECK(relative_error(ops::dropout(x, 0.0f, true).to(Device::cpu()), x.to(Device::cpu())) == 0.0);
}

TEST_CASE("CapturedStep: an error inside the body is rethrown after on_failure, and the stream leaves capture mode") {
  bool cleaned = false;
  CHECK_THROWS_AS(CapturedStep::capture(
                      kGpu, [](CapturedStep&) { throw InvalidArgument("planted failure"); },
                      [&] { cleaned = true; }),
                  InvalidArgument);
  CHECK(cleaned);
  CHECK_FALSE(stream_is_capturing());
  CHECK(ReplayParameters::active() == nullptr);

  // A tensor made in the body that outlives it fails the capture too.
  Tensor escaped;
  CHECK_THROWS_WITH_AS(CapturedStep::capture(
                           kGpu, [&](CapturedStep&) { escaped = Tensor::zeros({16}, DType::Float32, kGpu); },
                           [&] { escaped = Tensor(); }),
                       doctest::Contains("outlive"), Error);
  CHECK_FALSE(escaped.defined());
  CHECK_FALSE(stream_is_capturing());
}

TEST_CASE("CapturedStep replays draw the dropout masks eager dropout draws, launch after launch") {
  const Tensor x = random_tensor({1000, 7}, 6, 0.5, 1.5).to(kGpu);
  Tensor out = Tensor::empty({1000, 7}, DType::Float32, kGpu);
  Tensor loss_source = Tensor::full({1}, 2.5, DType::Float32, kGpu);
  Generator replayed(77), eager(77);
  std::unique_ptr<CapturedStep> step = CapturedStep::capture(
      kGpu,
      [&](CapturedStep& captured) {
        const Tensor y = ops::dropout(x, 0.3f, true, replayed);
        copy_into(out, y);
        captured.record_output(0, loss_source);
      },
      [] {});
  REQUIRE(step != nullptr);
  CHECK(replayed.offset() == 0);  // nothing ran yet
  for (int launch = 0; launch < 3; ++launch) {
    CAPTURE(launch);
    copy_into(out, poisoned(out.shape(), kGpu));
    step->launch();
    step->wait();
    const Tensor expected = ops::dropout(x, 0.3f, true, eager);
    CHECK(out.to(Device::cpu()).to_vector<float>() == expected.to(Device::cpu()).to_vector<float>());
    CHECK(replayed.offset() == eager.offset());
    CHECK(step->output(0) == 2.5f);
  }
}
