// Step capture on the CPU tier: the option's resolution and flags, and the
// optimizer's recording path (counters advance per launch, Adam's bias
// corrections from a replay slot) giving exactly the eager results.
#include <doctest/doctest.h>

#include "core/replay_parameters.hpp"
#include "examples/training_cli.hpp"
#include "tests/support/testing.hpp"
#include "tests/support/training_task.hpp"
#include "training/experiment.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

TEST_CASE("step capture: Auto is on for CUDA and off on the CPU; On needs CUDA") {
  CHECK_FALSE(resolve_step_capture(StepCapture::Auto, Device::cpu()));
  CHECK(resolve_step_capture(StepCapture::Auto, Device::cuda(0)));
  CHECK(resolve_step_capture(StepCapture::On, Device::cuda(0)));
  CHECK_FALSE(resolve_step_capture(StepCapture::Off, Device::cuda(0)));
  CHECK_FALSE(resolve_step_capture(StepCapture::Off, Device::cpu()));
  CHECK_THROWS_WITH_AS(resolve_step_capture(StepCapture::On, Device::cpu()), doctest::Contains("CUDA device"),
                       InvalidArgument);
  for (const StepCapture capture : {StepCapture::Auto, StepCapture::On, StepCapture::Off}) {
    CHECK(parse_step_capture(step_capture_name(capture)) == capture);
  }
  CHECK_THROWS_AS(parse_step_capture("yes"), InvalidArgument);
}

TEST_CASE("a CPU trainer with capture On is refused; with Auto it trains eagerly and says so") {
  const TinyTask task = tiny_task(2);
  Generator generator(4);
  const auto model = tiny_gcn(task, generator);
  Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
  TrainerOptions options;
  options.epochs = 3;
  options.capture_step = StepCapture::On;
  CHECK_THROWS_AS(Trainer(*model, optimizer, task.data, options), InvalidArgument);
  options.capture_step = StepCapture::Auto;
  Trainer trainer(*model, optimizer, task.data, options);
  const TrainResult result = trainer.fit();
  CHECK_FALSE(result.step_captured);
  CHECK_FALSE(trainer.step_captured());
  CHECK(result.history.size() == 3);
}

TEST_CASE("--cuda-graph parses auto|on|off; on with --device cpu is refused") {
  CLI::App app{"test"};
  examples::ProgramOptions options;
  examples::add_training_flags(app, model_entry("gcn"), options);
  app.parse("--dataset cora --cuda-graph off", false);
  CHECK(options.experiment.cuda_graph == "off");
  CLI::App other{"test"};
  examples::ProgramOptions bad;
  examples::add_training_flags(other, model_entry("gcn"), bad);
  CHECK_THROWS_AS(other.parse("--dataset cora --cuda-graph maybe", false), CLI::ValidationError);

  ExperimentOptions experiment;
  experiment.dataset = "cora";
  experiment.cuda_graph = "on";
  CHECK_THROWS_WITH_AS(validate_options(experiment), doctest::Contains("--cuda-graph on"), InvalidArgument);
  experiment.device = "cuda";
  CHECK_NOTHROW(validate_options(experiment));
  experiment.cuda_graph = "sometimes";
  CHECK_THROWS_AS(validate_options(experiment), InvalidArgument);
}

TEST_CASE("the results JSON records the --cuda-graph option and whether the step was captured") {
  ExperimentResult result;
  result.cuda_graph = "auto";
  result.step_captured = true;
  RunSummary run;
  run.result.step_captured = true;
  result.runs.push_back(run);
  const std::string json = experiment_json(result, "train_gcn");
  CHECK(json.find("\"cuda_graph\":\"auto\"") != std::string::npos);
  CHECK(json.find("\"step_captured\":true") != std::string::npos);
}

TEST_CASE("Adam recorded step by step (CPU: runs at once) equals eager Adam: parameters, moments, counters") {
  for (const bool decoupled : {false, true}) {
    CAPTURE(decoupled);
    Tensor eager_a = random_tensor({5, 3}, 1).set_requires_grad(true);
    Tensor eager_b = random_tensor({3}, 2).set_requires_grad(true);
    Tensor recorded_a = eager_a.detach().clone().set_requires_grad(true);
    Tensor recorded_b = eager_b.detach().clone().set_requires_grad(true);
    ops::AdamHyperparameters hyper{0.05f};
    hyper.weight_decay = 0.01f;
    hyper.decoupled_weight_decay = decoupled;
    const auto groups = [](Tensor& a, Tensor& b) {
      return std::vector<ParameterGroup>{{{a}, std::nullopt, std::nullopt}, {{b}, 0.1f, 0.0f}};
    };
    Adam eager(groups(eager_a, eager_b), hyper);
    Adam recorded(groups(recorded_a, recorded_b), hyper);
    for (int step = 1; step <= 4; ++step) {
      CAPTURE(step);
      const Tensor gradient_a = random_tensor({5, 3}, static_cast<uint64_t>(10 + step));
      const Tensor gradient_b = random_tensor({3}, static_cast<uint64_t>(20 + step));
      eager_a.set_grad(gradient_a);
      eager_b.set_grad(gradient_b);
      recorded_a.set_grad(gradient_a.clone());
      // b has no gradient on odd steps: skipped, its count untouched, in both modes.
      if (step % 2 == 0) {
        recorded_b.set_grad(gradient_b.clone());
      } else {
        eager_b.zero_grad();
      }
      eager.step();
      ReplayParameters replay(Device::cpu());
      {
        const ReplayParameters::Recording recording(replay);
        recorded.step();
        CHECK(recorded.step_count() == step - 1);  // held while recording
      }
      replay.prepare_launch();
      CHECK(recorded.step_count() == eager.step_count());
      recorded_a.zero_grad();
      recorded_b.zero_grad();
      CHECK(recorded_a.to_vector<float>() == eager_a.to_vector<float>());
      CHECK(recorded_b.to_vector<float>() == eager_b.to_vector<float>());
      const std::vector<Tensor> eager_state = eager.state();
      const std::vector<Tensor> recorded_state = recorded.state();
      REQUIRE(eager_state.size() == recorded_state.size());
      for (std::size_t i = 0; i < eager_state.size(); ++i) {
        CAPTURE(i);
        if (eager_state[i].dtype() == DType::Int64) {
          CHECK(recorded_state[i].to_vector<int64_t>() == eager_state[i].to_vector<int64_t>());
        } else {
          CHECK(recorded_state[i].to_vector<float>() == eager_state[i].to_vector<float>());
        }
      }
    }
  }
}

TEST_CASE("Optimizer::load_state copies the values in: later writes to the caller's tensors do not reach it") {
  Tensor p = random_tensor({4}, 3).set_requires_grad(true);
  Adam adam(std::vector<Tensor>{p}, ops::AdamHyperparameters{0.1f});
  p.set_grad(random_tensor({4}, 4));
  adam.step();
  std::vector<Tensor> saved = adam.state();
  Adam other(std::vector<Tensor>{random_tensor({4}, 5).set_requires_grad(true)}, ops::AdamHyperparameters{0.1f});
  other.load_state(saved);
  const std::vector<Tensor> loaded = other.state();
  REQUIRE(loaded.size() == saved.size());
  CHECK(loaded[2].to_vector<float>() == saved[2].to_vector<float>());
  CHECK(loaded[3].to_vector<float>() == saved[3].to_vector<float>());
  saved[2].data<float>()[0] += 1.0f;
  CHECK(other.state()[2].to_vector<float>() == loaded[2].to_vector<float>());
}
