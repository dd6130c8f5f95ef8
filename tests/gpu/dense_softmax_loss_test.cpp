#include <doctest/doctest.h>

#include <cmath>

#include "ops/loss.hpp"
#include "ops/loss_backend.hpp"
#include "ops/softmax_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("GPU softmax and log_softmax match the CPU backend, forward and backward, on poisoned outputs") {
  for (const Shape& shape : {Shape{1}, Shape{5, 1}, Shape{7, 3}, Shape{100, 17}, Shape{33, 257}, Shape{2, 5000}}) {
    for (bool log : {false, true}) {
      CAPTURE(log);
      const Tensor x = random_tensor(shape, 1, -8.0, 8.0);
      const int64_t cols = shape.back();
      Tensor y_cpu = Tensor::empty(shape);
      ops::softmax_forward(ops::Cpu{}, log, x, cols, y_cpu);
      Tensor y_gpu = poisoned(shape, kGpu);
      ops::softmax_forward(ops::Cuda{}, log, x.to(kGpu), cols, y_gpu);
      CHECK(relative_error(y_gpu, y_cpu) < 1e-5);

      const Tensor g = random_tensor(shape, 2);
      Tensor dx_cpu = Tensor::empty(shape);
      ops::softmax_backward(ops::Cpu{}, log, y_cpu, g, cols, dx_cpu);
      Tensor dx_gpu = poisoned(shape, kGpu);
      ops::softmax_backward(ops::Cuda{}, log, y_cpu.to(kGpu), g.to(kGpu), cols, dx_gpu);
      CHECK(relative_error(dx_gpu, dx_cpu) < 1e-5);
    }
  }
}

TEST_CASE("GPU losses match the CPU backend per row and in backward, with and without an index") {
  // Classes for every row-group width (4, 8, 16 and 32 lanes), rows not a multiple of the rows a warp takes.
  for (const Shape& shape : {Shape{1, 1}, Shape{3, 17}, Shape{2708, 7}, Shape{1001, 41}, Shape{77, 100}, Shape{40, 257}}) {
    const int64_t rows = shape[0];
    const Tensor x = random_tensor(shape, 3, -5.0, 5.0);
    const Tensor labels = random_indices({rows}, 4, 0, shape[1], DType::Int32);
    const Tensor index = random_indices({rows / 2 + 1}, 5, 0, rows, DType::Int32);  // repeats likely
    const Tensor g = Tensor::full({}, 0.75);
    for (ops::LossKind kind : {ops::LossKind::Nll, ops::LossKind::CrossEntropy}) {
      for (const Tensor& selected : {Tensor(), index}) {
        const int64_t m = selected.defined() ? selected.numel() : rows;
        const Tensor selected_gpu = selected.defined() ? selected.to(kGpu) : Tensor();
        Tensor per_row_cpu = Tensor::empty({m});
        ops::loss_per_row(ops::Cpu{}, kind, x, labels, selected, per_row_cpu);
        Tensor per_row_gpu = poisoned({m}, kGpu);
        ops::loss_per_row(ops::Cuda{}, kind, x.to(kGpu), labels.to(kGpu), selected_gpu, per_row_gpu);
        CHECK(relative_error(per_row_gpu, per_row_cpu) < 1e-5);

        const float inverse = 1.0f / static_cast<float>(m);
        Tensor grad_cpu = Tensor::empty(shape);
        ops::loss_backward(ops::Cpu{}, kind, x, labels, selected, g, inverse, grad_cpu);
        Tensor grad_gpu = poisoned(shape, kGpu);
        ops::loss_backward(ops::Cuda{}, kind, x.to(kGpu), labels.to(kGpu), selected_gpu, g.to(kGpu), inverse,
                           grad_gpu);
        CHECK(relative_error(grad_gpu, grad_cpu) < 1e-5);
      }
    }
  }
}

TEST_CASE("GPU cross_entropy through autograd matches the CPU value and gradient") {
  const Tensor x0 = random_tensor({50, 7}, 6, -3.0, 3.0);
  const Tensor labels = random_indices({50}, 7, 0, 7, DType::Int32);
  const Tensor index = random_indices({20}, 8, 0, 50, DType::Int32);
  Tensor x_cpu = x0.clone().set_requires_grad(true);
  const Tensor loss_cpu = ops::cross_entropy(x_cpu, labels, index);
  loss_cpu.backward();
  Tensor x_gpu = x0.to(kGpu).set_requires_grad(true);
  const Tensor loss_gpu = ops::cross_entropy(x_gpu, labels.to(kGpu), index.to(kGpu));
  loss_gpu.backward();
  CHECK(loss_gpu.device() == kGpu);
  CHECK(std::abs(loss_gpu.item() - loss_cpu.item()) < 1e-5 * std::abs(loss_cpu.item()) + 1e-6);
  CHECK(relative_error(x_gpu.grad(), x_cpu.grad()) < 1e-5);
}

TEST_CASE("GPU losses turn an out-of-range label or index into NaN and give that row no gradient") {
  const Tensor x = random_tensor({4, 3}, 9, -1.0, 1.0, kGpu);
  const Tensor bad_labels = Tensor::from_vector<int32_t>({0, 3, 1, -1}, {4}, kGpu);
  CHECK(std::isnan(ops::nll_loss(x, bad_labels).item()));
  CHECK(std::isnan(ops::cross_entropy(x, bad_labels).item()));
  const Tensor labels = Tensor::from_vector<int32_t>({0, 2, 1, 1}, {4}, kGpu);
  CHECK(std::isnan(ops::cross_entropy(x, labels, Tensor::from_vector<int32_t>({0, 4}, {2}, kGpu)).item()));
  Tensor grad = poisoned({4, 3}, kGpu);
  ops::loss_backward(ops::Cuda{}, ops::LossKind::CrossEntropy, x, bad_labels, Tensor(),
                     Tensor::full({}, 1.0, DType::Float32, kGpu), 0.25f, grad);
  const std::vector<float> values = grad.to_vector<float>();
  for (std::size_t i = 3; i < 6; ++i) CHECK(values[i] == 0.0f);  // row 1 (label 3) gets nothing
  for (float v : values) CHECK(std::isfinite(v));
}
