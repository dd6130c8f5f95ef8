// batch_norm and layer_norm on the GPU: each CUDA backend function against
// the CPU backend on fresh random inputs with poisoned (NaN) outputs, tall
// batches (split statistics and sums), narrow and wide channel counts, the
// autograd ops end to end, and the BF16 bounds of
// tests/support/dense_checks.hpp on the device.
#include <doctest/doctest.h>

#include "ops/cast.hpp"
#include "ops/normalization.hpp"
#include "ops/normalization_backend.hpp"
#include "tests/support/dense_checks.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Rows: two, a few, not a multiple of the 8 row-threads, and tall enough to
// split (Reddit has 232,965); channels: one, below a warp, above it, not a
// multiple of 32.
const Shape kShapes[] = {{2, 1}, {7, 3}, {1000, 33}, {100003, 16}, {232965, 41}, {3, 300}, {4099, 257}};

// Columns offset by up to 120 against a spread of ±1: a single-pass E[x²] − E[x]² in float would be off by
// about e·(120 / 0.58)² ≈ 3e-3 in the variance.
Tensor offset_inputs(const Shape& shape, uint64_t seed, DType dtype) {
  Tensor x = random_tensor(shape, seed);
  float* data = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) data[i] += static_cast<float>(i % shape.back() % 7) * 20.0f;
  return ops::cast(x, dtype);
}

Tensor poisoned_like(const Shape& shape, DType dtype) { return ops::cast(poisoned(shape, kGpu), dtype); }

}  // namespace

TEST_CASE("GPU batch_norm statistics, forward and backward match the CPU backend on poisoned outputs") {
  for (const Shape& shape : kShapes) {
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
      CAPTURE(shape_str(shape));
      CAPTURE(dtype_name(dtype));
      const int64_t channels = shape[1];
      const Tensor x = offset_inputs(shape, 1, dtype), x_gpu = x.to(kGpu);
      const Tensor weight = random_tensor({channels}, 2, 0.5, 1.5), bias = random_tensor({channels}, 3);
      const Tensor running_mean = random_tensor({channels}, 4), running_var = random_tensor({channels}, 5, 0.5, 2.0);
      for (bool training : {true, false}) {
        CAPTURE(training);
        Tensor mean_cpu = Tensor::empty({channels}), scale_cpu = Tensor::empty({channels});
        Tensor rm_cpu = running_mean.clone(), rv_cpu = running_var.clone(), count_cpu = Tensor::zeros({}, DType::Int64);
        ops::batch_norm_statistics(ops::Cpu{}, x, training, 0.1f, 1e-5f, rm_cpu, rv_cpu, count_cpu, mean_cpu, scale_cpu);
        Tensor mean_gpu = poisoned({channels}, kGpu), scale_gpu = poisoned({channels}, kGpu);
        Tensor rm_gpu = running_mean.to(kGpu), rv_gpu = running_var.to(kGpu);
        Tensor count_gpu = Tensor::zeros({}, DType::Int64, kGpu);
        ops::batch_norm_statistics(ops::Cuda{}, x_gpu, training, 0.1f, 1e-5f, rm_gpu, rv_gpu, count_gpu, mean_gpu,
                                   scale_gpu);
        CHECK(relative_error(mean_gpu, mean_cpu) < 1e-6);
        CHECK(relative_error(scale_gpu, scale_cpu) < 1e-4);  // float Welford against float64 two-pass
        CHECK(relative_error(rm_gpu, rm_cpu) < 1e-6);
        CHECK(relative_error(rv_gpu, rv_cpu) < 1e-4);
        CHECK(count_gpu.item() == count_cpu.item());

        // The rest from the CPU statistics, so each kernel is compared on its own.
        Tensor y_cpu = Tensor::empty(shape, dtype);
        ops::batch_norm_forward(ops::Cpu{}, x, mean_cpu, scale_cpu, weight, bias, y_cpu);
        Tensor y_gpu = poisoned_like(shape, dtype);
        ops::batch_norm_forward(ops::Cuda{}, x_gpu, mean_cpu.to(kGpu), scale_cpu.to(kGpu), weight.to(kGpu),
                                bias.to(kGpu), y_gpu);
        CHECK(relative_error(y_gpu.to(Device::cpu()), y_cpu) < (dtype == DType::Float32 ? 1e-6 : 1e-2));

        const Tensor grad = ops::cast(random_tensor(shape, 6), dtype);
        Tensor sums_cpu = Tensor::empty({2, channels});
        ops::normalization_sums(ops::Cpu{}, grad, x, mean_cpu, scale_cpu, false, sums_cpu);
        Tensor sums_gpu = poisoned({2, channels}, kGpu);
        ops::normalization_sums(ops::Cuda{}, grad.to(kGpu), x_gpu, mean_cpu.to(kGpu), scale_cpu.to(kGpu), false,
                                sums_gpu);
        CHECK(relative_error(sums_gpu, sums_cpu) < 1e-4);

        Tensor dx_cpu = Tensor::empty(shape, dtype);
        ops::batch_norm_backward(ops::Cpu{}, training, grad, x, mean_cpu, scale_cpu, weight, sums_cpu, dx_cpu);
        Tensor dx_gpu = poisoned_like(shape, dtype);
        ops::batch_norm_backward(ops::Cuda{}, training, grad.to(kGpu), x_gpu, mean_cpu.to(kGpu), scale_cpu.to(kGpu),
                                 weight.to(kGpu), sums_cpu.to(kGpu), dx_gpu);
        CHECK(relative_error(dx_gpu.to(Device::cpu()), dx_cpu) < (dtype == DType::Float32 ? 1e-5 : 1e-2));
      }
    }
  }
}

TEST_CASE("GPU layer_norm forward, backward and parameter sums match the CPU backend on poisoned outputs") {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 3}, Shape{1003, 64}, Shape{100003, 16}, Shape{33, 3000}, Shape{5, 2, 41}}) {
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
      CAPTURE(shape_str(shape));
      CAPTURE(dtype_name(dtype));
      const int64_t features = shape.back();
      const int64_t rows = shape_numel(shape) / features;
      const Tensor x = offset_inputs(shape, 7, dtype), x_gpu = x.to(kGpu);
      const Tensor weight = random_tensor({features}, 8, 0.5, 1.5), bias = random_tensor({features}, 9);
      Tensor y_cpu = Tensor::empty(shape, dtype), mean_cpu = Tensor::empty({rows}), scale_cpu = Tensor::empty({rows});
      ops::layer_norm_forward(ops::Cpu{}, x, weight, bias, 1e-5f, y_cpu, mean_cpu, scale_cpu);
      Tensor y_gpu = poisoned_like(shape, dtype), mean_gpu = poisoned({rows}, kGpu), scale_gpu = poisoned({rows}, kGpu);
      ops::layer_norm_forward(ops::Cuda{}, x_gpu, weight.to(kGpu), bias.to(kGpu), 1e-5f, y_gpu, mean_gpu, scale_gpu);
      CHECK(relative_error(mean_gpu, mean_cpu) < 1e-6);
      CHECK(relative_error(scale_gpu, scale_cpu) < 1e-4);
      CHECK(relative_error(y_gpu.to(Device::cpu()), y_cpu) < (dtype == DType::Float32 ? 1e-4 : 1e-2));

      const Tensor grad = ops::cast(random_tensor(shape, 10), dtype);
      Tensor dx_cpu = Tensor::empty(shape, dtype);
      ops::layer_norm_backward(ops::Cpu{}, grad, x, mean_cpu, scale_cpu, weight, dx_cpu);
      Tensor dx_gpu = poisoned_like(shape, dtype);
      ops::layer_norm_backward(ops::Cuda{}, grad.to(kGpu), x_gpu, mean_cpu.to(kGpu), scale_cpu.to(kGpu),
                               weight.to(kGpu), dx_gpu);
      CHECK(relative_error(dx_gpu.to(Device::cpu()), dx_cpu) < (dtype == DType::Float32 ? 1e-5 : 1e-2));
      Tensor sums_cpu = Tensor::empty({2, features});
      ops::normalization_sums(ops::Cpu{}, grad, x, mean_cpu, scale_cpu, true, sums_cpu);
      Tensor sums_gpu = poisoned({2, features}, kGpu);
      ops::normalization_sums(ops::Cuda{}, grad.to(kGpu), x_gpu, mean_cpu.to(kGpu), scale_cpu.to(kGpu), true, sums_gpu);
      CHECK(relative_error(sums_gpu, sums_cpu) < 1e-4);
    }
  }
}

TEST_CASE("GPU batch_norm and layer_norm through autograd match the CPU, empty batches included") {
  for (const Shape& shape : {Shape{1000, 33}, Shape{0, 5}}) {
    CAPTURE(shape_str(shape));
    const int64_t channels = shape[1];
    for (bool training : {true, false}) {
      if (training && shape[0] < 2) continue;
      for (bool layer : {false, true}) {
        CAPTURE(training);
        CAPTURE(layer);
        const Tensor x0 = offset_inputs(shape, 11, DType::Float32);
        const Tensor w0 = random_tensor({channels}, 12, 0.5, 1.5), b0 = random_tensor({channels}, 13);
        const Tensor rm = random_tensor({channels}, 14), rv = random_tensor({channels}, 15, 0.5, 2.0);
        const Tensor g = random_tensor(shape, 16);
        auto run = [&](Device device) {
          Tensor x = x0.to(device).clone().set_requires_grad(true);
          Tensor w = w0.to(device).clone().set_requires_grad(true), b = b0.to(device).clone().set_requires_grad(true);
          const ops::RunningStatistics running{rm.to(device).clone(), rv.to(device).clone(),
                                               Tensor::zeros({}, DType::Int64, device)};
          const Tensor y = layer ? ops::layer_norm(x, w, b) : ops::batch_norm(x, w, b, running, training);
          y.backward(g.to(device));
          return std::vector<Tensor>{y, x.grad(), w.grad(), b.grad(), running.mean, running.variance};
        };
        const std::vector<Tensor> cpu = run(Device::cpu()), gpu = run(kGpu);
        for (std::size_t i = 0; i < cpu.size(); ++i) {
          CAPTURE(i);
          CHECK(gpu[i].device() == kGpu);
          CHECK(relative_error(gpu[i].to(Device::cpu()), cpu[i]) < 1e-4);
        }
      }
    }
  }
}

TEST_CASE("GPU BF16 batch_norm and layer_norm within the bounds of dense_checks.hpp") {
  for (const Shape& shape : {Shape{67, 5}, Shape{20000, 40}}) {
    CAPTURE(shape_str(shape));
    CHECK(bf16::normalization_error(kGpu, false, true, shape[0], shape[1]) <= 1.0);
    CHECK(bf16::normalization_error(kGpu, false, false, shape[0], shape[1]) <= 1.0);
    CHECK(bf16::normalization_error(kGpu, true, true, shape[0], shape[1]) <= 1.0);
  }
}

TEST_CASE("GPU batch_norm refuses parameters on another device") {
  const Tensor x = Tensor::zeros({4, 3}, DType::Float32, kGpu);
  CHECK_THROWS_WITH_AS(ops::batch_norm(x, Tensor::zeros({3}), Tensor::zeros({3}), {}, true),
                       doctest::Contains("batch_norm: tensors on different devices"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::layer_norm(x, Tensor::zeros({3}), Tensor::zeros({3})),
                       doctest::Contains("layer_norm: tensors on different devices"), InvalidArgument);
}
