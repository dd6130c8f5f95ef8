// BF16 on the GPU: every dense BF16 op and the edge softmax against float64
// references with the bounds of tests/support/bf16_checks.hpp (the same
// checks the CPU tier runs on the host), the element-wise kernels bit for bit
// against the CPU backend where both compute the same float expression,
// BF16 training against the CPU, CUDA Graph replay of a BF16 step, and a
// bit-identical BF16 resume under --deterministic.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/generator.hpp"
#include "graph_io/feature_transforms.hpp"
#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/dropout.hpp"
#include "ops/optimizer_step.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/bf16_checks.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"
#include "tests/support/training_task.hpp"
#include "training/checkpoint.hpp"
#include "training/experiment.hpp"

using namespace sgnn;
using namespace sgnn::training;
using namespace sgnn::testing;

namespace {

Tensor to_bf16(const Tensor& x) { return ops::cast(x, DType::BFloat16); }

std::vector<uint16_t> bits(const Tensor& t) {
  std::vector<uint16_t> out;
  for (const bfloat16 value : t.to(Device::cpu()).to_vector<bfloat16>()) out.push_back(value.bits);
  return out;
}

}  // namespace

TEST_CASE("GPU BF16 cast rounds as the CPU does, bit for bit, and within 2^-8 of float64") {
  CHECK(bf16::cast_error(kGpu) <= 1.0);
  const Tensor x = random_tensor({100003}, 1, -1e4, 1e4);
  CHECK(bits(ops::cast(x.to(kGpu), DType::BFloat16)) == bits(to_bf16(x)));
}

TEST_CASE("GPU BF16 matmul (cuBLAS BF16 tensor cores, float accumulation) within (u + (k+2)e)·Σ|a||b|") {
  // Odd extents (leading dimensions not multiples of 8) and the GCN shapes.
  for (const auto& [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                                {37, 53, 29},
                                {2708, 1433, 16},
                                {1000, 602, 128},
                                {513, 129, 41}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    const double worst = bf16::matmul_error(kGpu, m, k, n);
    MESSAGE("GPU matmul ", m, "x", k, "x", n, ": worst error / bound ", worst);
    CHECK(worst <= 1.0);
  }
  const double weight = bf16::matmul_weight_error(kGpu, 2708, 1433, 16);
  MESSAGE("GPU matmul_weight: worst error / bound ", weight);
  CHECK(weight <= 1.0);  // the float32 weight gradient: float accumulation only
}

TEST_CASE("GPU BF16 element-wise ops, activations, bias + activation, softmax, loss, reductions against float64") {
  CHECK(bf16::elementwise_error(kGpu, 1, 1) <= 1.0);
  CHECK(bf16::elementwise_error(kGpu, 2000, 64) <= 1.0);
  CHECK(bf16::activation_error(kGpu) <= 1.0);
  CHECK(bf16::bias_activation_error(kGpu, 1, 1) <= 1.0);
  CHECK(bf16::bias_activation_error(kGpu, 100000, 41) <= 1.0);  // many row chunks per column tile
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {2708, 7}, {9, 300}, {2, 5000}}) {
    CAPTURE(cols);
    CHECK(bf16::softmax_error(kGpu, rows, cols) <= 1.0);
  }
  CHECK(bf16::loss_error(kGpu, 2708, 7) <= 1.0);
  CHECK(bf16::loss_error(kGpu, 40, 257) <= 1.0);
  CHECK(bf16::reduce_error(kGpu, 7, 100000, 1) <= 1.0);  // split into partials
  CHECK(bf16::reduce_error(kGpu, 3, 5000, 65) <= 1.0);
  CHECK(bf16::reduce_error(kGpu, 1, 3, 1) <= 1.0);
}

TEST_CASE("GPU BF16 edge softmax computes in float: random, R-MAT and hub graphs, heads 1 and 8") {
  CHECK(bf16::edge_softmax_error(random_graph(1, 1, 1, false, kGpu), 1) <= 1.0);
  CHECK(bf16::edge_softmax_error(random_graph(20, 6, 2, false, kGpu), 8) <= 1.0);  // empty rows
  CHECK(bf16::edge_softmax_error(rmat_graph(4096, 60000, 4, kGpu), 8) <= 1.0);
  CHECK(bf16::edge_softmax_error(hub_graph(100001, 100000, 7, kGpu), 1) <= 1.0);  // a hub row of 10^5 entries
}

TEST_CASE("GPU BF16 attention softmax: bfloat16 attention and scores' gradient within float64 bounds") {
  CHECK(bf16::attention_softmax_error(random_graph(1, 1, 1, false, kGpu), 1) <= 1.0);
  CHECK(bf16::attention_softmax_error(random_graph(20, 6, 2, false, kGpu), 8) <= 1.0);  // empty rows
  CHECK(bf16::attention_softmax_error(random_graph(2000, 30000, 3, false, kGpu), 3) <= 1.0);  // per-head layout
  CHECK(bf16::attention_softmax_error(rmat_graph(4096, 60000, 4, kGpu), 8) <= 1.0);
  CHECK(bf16::attention_softmax_error(hub_graph(100001, 100000, 7, kGpu), 8) <= 1.0);  // the long-row kernel
}

TEST_CASE("GPU BF16 element-wise kernels equal the CPU backend bit for bit where both compute one float expression") {
  const Tensor x = to_bf16(random_tensor({100003}, 5, -4.0, 4.0));  // odd length: the vector path's tail
  // Dropout: same mask, same scaled value, same rounding.
  Generator cpu_generator(8);
  Generator gpu_generator(8);
  CHECK(bits(ops::dropout(x.to(kGpu), 0.4f, true, gpu_generator)) == bits(ops::dropout(x, 0.4f, true, cpu_generator)));
  CHECK(bits(ops::relu(x.to(kGpu))) == bits(ops::relu(x)));
  CHECK(bits(ops::leaky_relu(x.to(kGpu), 0.2f)) == bits(ops::leaky_relu(x, 0.2f)));
  // Adam writes the same float32 parameter on both, so the same bfloat16 copy.
  Tensor parameter = random_tensor({4099}, 6);
  const Tensor gradient = random_tensor({4099}, 7);
  Tensor device_parameter = parameter.to(kGpu);
  const Tensor device_gradient = gradient.to(kGpu);
  Tensor first, second, device_first, device_second;
  Tensor copy = Tensor::zeros({4099}, DType::BFloat16);
  Tensor device_copy = Tensor::zeros({4099}, DType::BFloat16, kGpu);
  const ops::AdamHyperparameters hyper{0.05f};
  ops::adam_step_many({ops::AdamUpdate{&parameter, &gradient, &first, &second, hyper, 1, nullptr, &copy}});
  ops::adam_step_many({ops::AdamUpdate{&device_parameter, &device_gradient, &device_first, &device_second, hyper, 1,
                                       nullptr, &device_copy}});
  CHECK(device_parameter.to(Device::cpu()).to_vector<float>() == parameter.to_vector<float>());
  CHECK(bits(device_copy) == bits(copy));
  std::vector<uint16_t> expected;
  for (const float p : device_parameter.to(Device::cpu()).to_vector<float>()) expected.push_back(bfloat16(p).bits);
  CHECK(bits(device_copy) == expected);
}

TEST_CASE("GPU feature normalisation writes bfloat16 directly, within one rounding of the float result") {
  const Tensor x = random_tensor({3000, 1433}, 9, 0.0, 1.0);
  const Tensor wide = graph_io::normalize_feature_rows(x.to(kGpu));
  const Tensor narrow = graph_io::normalize_feature_rows(x.to(kGpu), DType::BFloat16);
  REQUIRE(narrow.dtype() == DType::BFloat16);
  CHECK(bits(narrow) == bits(to_bf16(wide.to(Device::cpu()))));
}

TEST_CASE("BF16 GCN and GAT training on the GPU follow the CPU's losses") {
  for (const bool gat : {false, true}) {
    CAPTURE(gat);
    std::vector<double> losses[2];
    for (const Device device : {Device::cpu(), kGpu}) {
      const TinyTask task = tiny_task(3, device);
      Generator generator(17);
      const auto model = gat ? tiny_gat(task, generator) : tiny_gcn(task, generator);
      model->set_precision(Precision::Bf16);
      model->to(device);
      Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
      TrainerOptions options;
      options.epochs = 10;
      options.capture_step = StepCapture::Off;
      Trainer trainer(*model, optimizer, task.data, options);
      for (const EpochRecord& record : trainer.fit().history)
        losses[device.is_cuda() ? 1 : 0].push_back(record.train_loss);
    }
    for (std::size_t epoch = 0; epoch < losses[0].size(); ++epoch) {
      CAPTURE(epoch);
      // Float sums in another order move a bfloat16 rounding now and then; the losses stay within a few 2^-8.
      CHECK(losses[1][epoch] == doctest::Approx(losses[0][epoch]).epsilon(2e-2));
    }
  }
}

TEST_CASE("a captured BF16 training step (CUDA Graph) replays the eager step's results") {
  const ops::DeterministicScope deterministic(true);
  for (const bool gat : {false, true}) {
    CAPTURE(gat);
    std::vector<double> losses[2];
    std::vector<std::vector<float>> parameters[2];
    for (const StepCapture capture : {StepCapture::Off, StepCapture::On}) {
      const TinyTask task = tiny_task(3, kGpu);
      Generator generator(29);
      const auto model = gat ? tiny_gat(task, generator) : tiny_gcn(task, generator);
      model->set_precision(Precision::Bf16);
      model->to(kGpu);
      Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
      TrainerOptions options;
      options.epochs = 7;
      options.restore_best = false;
      options.capture_step = capture;
      Trainer trainer(*model, optimizer, task.data, options);
      const std::size_t slot = capture == StepCapture::On ? 1 : 0;
      for (const EpochRecord& record : trainer.fit().history) losses[slot].push_back(record.train_loss);
      if (capture == StepCapture::On) CHECK(trainer.step_captured());
      for (const Tensor& p : model->parameters()) parameters[slot].push_back(p.to(Device::cpu()).to_vector<float>());
    }
    CHECK(losses[1] == losses[0]);
    CHECK(parameters[1] == parameters[0]);
  }
}

TEST_CASE("run_experiment --precision bf16 --deterministic on CUDA: resuming gives the uninterrupted run's bits") {
  TempDir folder;
  for (const std::string kind : {"gcn", "gat"}) {
    CAPTURE(kind);
    ExperimentOptions options;
    options.model = kind;
    options.dataset = "cora";
    options.device = "cuda";
    options.precision = Precision::Bf16;
    options.deterministic = true;
    options.hyperparameters = {{"patience", "0"}, {"epochs", "12"}};
    const ExperimentResult uninterrupted = run_experiment(options);
    CHECK(uninterrupted.precision == "bf16");
    options.hyperparameters = {{"patience", "0"}, {"epochs", "5"}};
    options.checkpoint = (folder / "run.ckpt").string();
    run_experiment(options);
    options.hyperparameters = {{"patience", "0"}, {"epochs", "12"}};
    options.checkpoint.clear();
    options.resume = (folder / "run.ckpt").string();
    const ExperimentResult resumed = run_experiment(options);
    const auto& expected = uninterrupted.runs.front().result.history;
    const auto& got = resumed.runs.front().result.history;
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i].train_loss == expected[i].train_loss);
    CHECK(resumed.test_accuracy == uninterrupted.test_accuracy);
  }
}
