#include <doctest/doctest.h>

#include "ops/bias_activation.hpp"
#include "ops/bias_activation_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::FusedActivation;

TEST_CASE("GPU bias_activation matches the CPU backend forward and backward, bias gradient included") {
  for (const Shape& shape : {Shape{1, 1}, Shape{3, 17}, Shape{2708, 16}, Shape{100000, 3}, Shape{40, 257},
                             Shape{0, 5}}) {
    for (FusedActivation activation :
         {FusedActivation::None, FusedActivation::Relu, FusedActivation::Elu, FusedActivation::LeakyRelu}) {
      CAPTURE(static_cast<int>(activation));
      const Tensor x = random_tensor(shape, 1, -2.0, 2.0);
      const Tensor bias = random_tensor({shape.back()}, 2);
      Tensor y_cpu = Tensor::empty(shape);
      ops::bias_activation_forward(ops::Cpu{}, activation, 0.3f, x, bias, y_cpu);
      Tensor y_gpu = poisoned(shape, kGpu);
      ops::bias_activation_forward(ops::Cuda{}, activation, 0.3f, x.to(kGpu), bias.to(kGpu), y_gpu);
      CHECK(relative_error(y_gpu, y_cpu) < 1e-6);

      const Tensor g = random_tensor(shape, 3);
      Tensor dx_cpu = Tensor::empty(shape), db_cpu = Tensor::empty({shape.back()});
      ops::bias_activation_backward(ops::Cpu{}, activation, 0.3f, y_cpu, g, dx_cpu, db_cpu);
      Tensor dx_gpu = poisoned(shape, kGpu), db_gpu = poisoned({shape.back()}, kGpu);
      ops::bias_activation_backward(ops::Cuda{}, activation, 0.3f, y_cpu.to(kGpu), g.to(kGpu), dx_gpu, db_gpu);
      CHECK(relative_error(dx_gpu, dx_cpu) < 1e-6);
      CHECK(relative_error(db_gpu, db_cpu) < 1e-5);

      Tensor no_bias_grad;  // the elementwise-only path
      Tensor dx_only = poisoned(shape, kGpu);
      ops::bias_activation_backward(ops::Cuda{}, activation, 0.3f, y_cpu.to(kGpu), g.to(kGpu), dx_only, no_bias_grad);
      CHECK(relative_error(dx_only, dx_cpu) < 1e-6);
    }
  }
}
