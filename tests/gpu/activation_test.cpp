#include <doctest/doctest.h>

#include "ops/activation.hpp"
#include "ops/activation_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("GPU activations match the CPU backend, forward and backward, on poisoned outputs") {
  for (const Shape& shape : {Shape{1}, Shape{3, 17}, Shape{1000, 257}}) {
    for (ops::Activation kind : {ops::Activation::Relu, ops::Activation::Elu, ops::Activation::LeakyRelu}) {
      const float parameter = kind == ops::Activation::Relu ? 0.0f : 0.3f;
      const Tensor x = random_tensor(shape, 3, -3.0, 3.0);
      Tensor y_cpu = Tensor::empty(shape);
      ops::activation_forward(ops::Cpu{}, kind, parameter, x, y_cpu);
      Tensor y_gpu = poisoned(shape, kGpu);
      ops::activation_forward(ops::Cuda{}, kind, parameter, x.to(kGpu), y_gpu);
      CHECK(relative_error(y_gpu, y_cpu) < 1e-6);

      const Tensor grad_y = random_tensor(shape, 4);
      Tensor grad_cpu = Tensor::empty(shape);
      ops::activation_backward(ops::Cpu{}, kind, parameter, y_cpu, grad_y, grad_cpu);
      Tensor grad_gpu = poisoned(shape, kGpu);
      ops::activation_backward(ops::Cuda{}, kind, parameter, y_cpu.to(kGpu), grad_y.to(kGpu), grad_gpu);
      CHECK(relative_error(grad_gpu, grad_cpu) < 1e-6);
    }
  }
}

TEST_CASE("GPU relu records a node whose backward runs on the GPU") {
  Tensor x = random_tensor({5, 4}, 9, -1.0, 1.0, kGpu).set_requires_grad(true);
  const Tensor y = ops::relu(x);
  CHECK(y.device() == kGpu);
  y.backward(Tensor::full({5, 4}, 1.0, DType::Float32, kGpu));
  const std::vector<float> xs = x.to_vector<float>();
  const std::vector<float> g = x.grad().to_vector<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) CHECK(g[i] == (xs[i] > 0 ? 1.0f : 0.0f));
}
