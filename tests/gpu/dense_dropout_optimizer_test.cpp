#include <doctest/doctest.h>

#include "ops/classification.hpp"
#include "ops/dropout.hpp"
#include "ops/optimizer_step.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("GPU dropout gives the CPU's mask bit for bit, forward and backward") {
  for (const Shape& shape : {Shape{1}, Shape{3, 17}, Shape{1000, 257}, Shape{5, 3}}) {
    for (float p : {0.1f, 0.5f, 0.9f}) {
      const Tensor x = random_tensor(shape, 1);
      Generator cpu_generator(1234), gpu_generator(1234);
      cpu_generator.set_offset(77);
      gpu_generator.set_offset(77);
      Tensor x_cpu = x.clone().set_requires_grad(true);
      Tensor x_gpu = x.to(kGpu).set_requires_grad(true);
      const Tensor y_cpu = ops::dropout(x_cpu, p, true, cpu_generator);
      const Tensor y_gpu = ops::dropout(x_gpu, p, true, gpu_generator);
      CHECK(y_gpu.to_vector<float>() == y_cpu.to_vector<float>());
      CHECK(gpu_generator.offset() == cpu_generator.offset());
      const Tensor g = random_tensor(shape, 2);
      y_cpu.backward(g);
      y_gpu.backward(g.to(kGpu));
      CHECK(x_gpu.grad().to_vector<float>() == x_cpu.grad().to_vector<float>());
    }
  }
}

TEST_CASE("GPU dropout on a view one float into its storage (no float4) gives the CPU's mask") {
  const int64_t count = 4099;
  const Tensor storage = random_tensor({count + 1}, 3);
  Generator cpu_generator(99), gpu_generator(99);
  const Tensor y_cpu = ops::dropout(storage.narrow_rows(1, count + 1), 0.5f, true, cpu_generator);
  const Tensor y_gpu = ops::dropout(storage.to(kGpu).narrow_rows(1, count + 1), 0.5f, true, gpu_generator);
  CHECK(y_gpu.to_vector<float>() == y_cpu.to_vector<float>());
}

TEST_CASE("GPU SGD and Adam steps match the CPU over several steps") {
  const Shape shape{257, 17};
  const Tensor p0 = random_tensor(shape, 3);
  for (bool nesterov : {false, true}) {
    const ops::SgdHyperparameters hyper{0.1f, 0.9f, 0.01f, nesterov};
    Tensor p_cpu = p0.clone(), p_gpu = p0.to(kGpu), buffer_cpu, buffer_gpu;
    for (uint64_t step = 0; step < 3; ++step) {
      const Tensor g = random_tensor(shape, 10 + step);
      ops::sgd_step(p_cpu, g, buffer_cpu, hyper);
      ops::sgd_step(p_gpu, g.to(kGpu), buffer_gpu, hyper);
    }
    CHECK(relative_error(p_gpu, p_cpu) < 1e-6);
    CHECK(relative_error(buffer_gpu, buffer_cpu) < 1e-6);
  }
  for (bool decoupled : {false, true}) {
    ops::AdamHyperparameters hyper{0.01f};
    hyper.weight_decay = 0.05f;
    hyper.decoupled_weight_decay = decoupled;
    Tensor p_cpu = p0.clone(), p_gpu = p0.to(kGpu), m_cpu, v_cpu, m_gpu, v_gpu;
    for (int64_t step = 1; step <= 3; ++step) {
      const Tensor g = random_tensor(shape, 20 + static_cast<uint64_t>(step));
      ops::adam_step(p_cpu, g, m_cpu, v_cpu, step, hyper);
      ops::adam_step(p_gpu, g.to(kGpu), m_gpu, v_gpu, step, hyper);
    }
    CHECK(relative_error(p_gpu, p_cpu) < 1e-6);
    CHECK(relative_error(m_gpu, m_cpu) < 1e-6);
    CHECK(relative_error(v_gpu, v_cpu) < 1e-6);
  }
}

TEST_CASE("GPU confusion matrix equals the CPU one and rejects bad labels") {
  const Tensor logits = random_tensor({2708, 7}, 4);
  const Tensor labels = random_indices({2708}, 5, 0, 7, DType::Int32);
  const Tensor index = random_indices({500}, 6, 0, 2708, DType::Int32);
  for (const Tensor& selected : {Tensor(), index}) {
    const Tensor cpu = ops::confusion_matrix(logits, labels, selected, 7);
    const Tensor gpu = ops::confusion_matrix(logits.to(kGpu), labels.to(kGpu),
                                             selected.defined() ? selected.to(kGpu) : Tensor(), 7);
    CHECK(gpu.device().is_cpu());
    CHECK(gpu.to_vector<int64_t>() == cpu.to_vector<int64_t>());
  }
  CHECK_THROWS_AS(ops::confusion_matrix(logits.to(kGpu), Tensor::full({2708}, 7, DType::Int32, kGpu), Tensor(), 7),
                  InvalidArgument);
}
