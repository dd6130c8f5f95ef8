// The broadcast binary ops, the math functions, sigmoid and tanh on the GPU:
// the CUDA backend against the CPU backend on fresh random inputs with
// poisoned (NaN) outputs, the autograd ops end to end, and the BF16 bounds of
// tests/support/dense_checks.hpp on the device.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ops/activation.hpp"
#include "ops/activation_backend.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/elementwise_broadcast.hpp"
#include "ops/math.hpp"
#include "ops/math_backend.hpp"
#include "tests/support/dense_checks.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::BinaryOp;

namespace {

struct Pair {
  Shape a, b;
};
// The run forms (equal, suffix, column, per head, scalar, outer) and the
// strided one ([N, 1, D] against [N, H, D]), each side, 1-sized and empty
// axes, and sizes that are not multiples of a warp or a block.
const Pair kPairs[] = {{{1}, {1}},
                       {{1000, 257}, {1000, 257}},
                       {{1000, 257}, {257}},
                       {{257}, {1000, 257}},
                       {{1003, 64}, {1003, 1}},
                       {{1003, 1}, {1003, 64}},
                       {{301, 8, 17}, {301, 8, 1}},
                       {{301, 1, 17}, {301, 8, 17}},
                       {{301, 8, 17}, {301, 1, 17}},
                       {{4, 7}, {}},
                       {{}, {4, 7}},
                       {{513, 1}, {1, 129}},
                       {{3, 1, 5, 1, 2}, {4, 1, 6, 1}},
                       {{0, 17}, {17}}};

}  // namespace

TEST_CASE("GPU binary ops match the CPU backend, forward and backward, on every broadcast form") {
  for (const Pair& pair : kPairs) {
    CAPTURE(shape_str(pair.a));
    CAPTURE(shape_str(pair.b));
    const Shape out_shape = ops::broadcast_shape(pair.a, pair.b, "test");
    const ops::BroadcastLayout layout = ops::broadcast_layout(pair.a, pair.b, "test");
    const Tensor a = nonzero_operand(pair.a, 1), b = nonzero_operand(pair.b, 2), grad = random_tensor(out_shape, 3);
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      Tensor cpu = Tensor::empty(out_shape);
      ops::binary_forward(ops::Cpu{}, op, a, b, layout, cpu);
      Tensor gpu = poisoned(out_shape, kGpu);
      ops::binary_forward(ops::Cuda{}, op, a.to(kGpu), b.to(kGpu), layout, gpu);
      CHECK(relative_error(gpu, cpu) < 1e-7);
      for (int operand_index = 0; operand_index < 2; ++operand_index) {
        Tensor grad_cpu = Tensor::empty(out_shape);
        ops::binary_backward(ops::Cpu{}, op, operand_index, grad, a, b, layout, grad_cpu);
        Tensor grad_gpu = poisoned(out_shape, kGpu);
        ops::binary_backward(ops::Cuda{}, op, operand_index, grad.to(kGpu), a.to(kGpu), b.to(kGpu), layout, grad_gpu);
        CHECK(relative_error(grad_gpu, grad_cpu) < 1e-7);
      }
    }
  }
}

TEST_CASE("GPU binary ops through autograd: outputs and gradients (sums over repeated axes) match the CPU") {
  for (const Pair& pair : kPairs) {
    CAPTURE(shape_str(pair.a));
    CAPTURE(shape_str(pair.b));
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      const Tensor a0 = nonzero_operand(pair.a, 4), b0 = nonzero_operand(pair.b, 5);
      Tensor a_cpu = a0.clone().set_requires_grad(true), b_cpu = b0.clone().set_requires_grad(true);
      Tensor a_gpu = a0.to(kGpu).set_requires_grad(true), b_gpu = b0.to(kGpu).set_requires_grad(true);
      const Tensor out_cpu = apply_binary(op, a_cpu, b_cpu);
      const Tensor out_gpu = apply_binary(op, a_gpu, b_gpu);
      CHECK(out_gpu.device() == kGpu);
      CHECK(relative_error(out_gpu, out_cpu) < 1e-7);
      const Tensor w = random_tensor(out_cpu.shape(), 6);
      out_cpu.backward(w);
      out_gpu.backward(w.to(kGpu));
      CHECK(relative_error(a_gpu.grad(), a_cpu.grad()) < 1e-5);
      CHECK(relative_error(b_gpu.grad(), b_cpu.grad()) < 1e-5);
    }
  }
}

TEST_CASE("GPU BF16 binary ops under broadcasting within the bounds of dense_checks.hpp") {
  const DType bf = DType::BFloat16, f32 = DType::Float32;
  struct Case {
    Shape a;
    DType a_dtype;
    Shape b;
    DType b_dtype;
  };
  for (const Case& c : {Case{{1003, 65}, bf, {65}, f32}, Case{{1003, 65}, bf, {1003, 1}, bf},
                        Case{{1003, 1}, f32, {1003, 65}, bf}, Case{{301, 8, 17}, bf, {301, 8, 1}, f32},
                        Case{{301, 1, 17}, bf, {301, 8, 17}, bf}, Case{{6, 5}, bf, {}, bf}}) {
    CAPTURE(shape_str(c.a));
    CAPTURE(shape_str(c.b));
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      CHECK(bf16::binary_error(kGpu, op, c.a, c.a_dtype, c.b, c.b_dtype) <= 1.0);
    }
  }
}

TEST_CASE("GPU binary ops index past 2^31 output elements (the 64-bit path)") {
  // 2^31 + 192 bfloat16 elements (4.3 GB): a column [N, 1] against [N, 64] divides in 64 bits.
  const int64_t rows = (int64_t{1} << 25) + 3;
  const Tensor ones = Tensor::full({rows, 64}, 1.0, DType::BFloat16, kGpu);
  const Tensor column = ops::cast(random_tensor({rows, 1}, 7), DType::BFloat16).to(kGpu);
  const Tensor out = ops::mul(ones, column);
  for (int64_t begin : {int64_t{0}, rows / 2, rows - 4}) {
    const std::vector<bfloat16> got = out.narrow_rows(begin, begin + 4).to(Device::cpu()).to_vector<bfloat16>();
    const std::vector<bfloat16> expected = column.narrow_rows(begin, begin + 4).to(Device::cpu()).to_vector<bfloat16>();
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i].bits == expected[i / 64].bits);
  }
}

TEST_CASE("GPU binary ops refuse operands on two devices") {
  CHECK_THROWS_WITH_AS(ops::add(Tensor::zeros({3}, DType::Float32, kGpu), Tensor::zeros({3})),
                       doctest::Contains("add: tensors on different devices"), InvalidArgument);
}

TEST_CASE("GPU math functions, sigmoid and tanh match the CPU backend, forward and backward, on poisoned outputs") {
  struct Case {
    ops::MathFunction function;
    ops::MathParameters parameters;
    double low, high;
  };
  for (const Case& c : {Case{ops::MathFunction::Exp, {}, -5.0, 5.0}, Case{ops::MathFunction::Log, {}, 0.01, 10.0},
                        Case{ops::MathFunction::Sqrt, {}, 0.0, 10.0}, Case{ops::MathFunction::Pow, {2.5f, 0.0f}, 0.0, 3.0},
                        Case{ops::MathFunction::Pow, {-2.0f, 0.0f}, -3.0, 3.0},
                        Case{ops::MathFunction::Clamp, {-0.5f, 0.5f}, -2.0, 2.0},
                        Case{ops::MathFunction::Neg, {}, -2.0, 2.0}, Case{ops::MathFunction::Abs, {}, -2.0, 2.0},
                        Case{ops::MathFunction::Square, {}, -2.0, 2.0}}) {
    CAPTURE(static_cast<int>(c.function));
    for (const Shape& shape : {Shape{1}, Shape{3, 17}, Shape{1000, 257}}) {
      const Tensor x = random_tensor(shape, 8, c.low, c.high);
      Tensor y_cpu = Tensor::empty(shape);
      ops::math_forward(ops::Cpu{}, c.function, c.parameters, x, y_cpu);
      Tensor y_gpu = poisoned(shape, kGpu);
      ops::math_forward(ops::Cuda{}, c.function, c.parameters, x.to(kGpu), y_gpu);
      CHECK(relative_error(y_gpu, y_cpu) < 1e-6);
      const Tensor grad = random_tensor(shape, 9);
      const Tensor saved = c.function == ops::MathFunction::Exp || c.function == ops::MathFunction::Sqrt ? y_cpu : x;
      Tensor grad_cpu = Tensor::empty(shape);
      ops::math_backward(ops::Cpu{}, c.function, c.parameters, saved, grad, grad_cpu);
      Tensor grad_gpu = poisoned(shape, kGpu);
      ops::math_backward(ops::Cuda{}, c.function, c.parameters, saved.to(kGpu), grad.to(kGpu), grad_gpu);
      CHECK(relative_error(grad_gpu, grad_cpu) < 1e-6);
    }
    CHECK(bf16::math_error(kGpu, c.function, c.parameters, std::max(c.low, c.function == ops::MathFunction::Sqrt ? 0.01 : c.low),
                           c.high) <= 1.0);
  }
  for (ops::Activation kind : {ops::Activation::Sigmoid, ops::Activation::Tanh}) {
    CAPTURE(static_cast<int>(kind));
    const Tensor x = random_tensor({1000, 257}, 10, -10.0, 10.0);
    Tensor y_cpu = Tensor::empty(x.shape());
    ops::activation_forward(ops::Cpu{}, kind, 0.0f, x, y_cpu);
    Tensor y_gpu = poisoned(x.shape(), kGpu);
    ops::activation_forward(ops::Cuda{}, kind, 0.0f, x.to(kGpu), y_gpu);
    CHECK(relative_error(y_gpu, y_cpu) < 1e-6);
    const Tensor grad = random_tensor(x.shape(), 11);
    Tensor grad_cpu = Tensor::empty(x.shape());
    ops::activation_backward(ops::Cpu{}, kind, 0.0f, y_cpu, grad, grad_cpu);
    Tensor grad_gpu = poisoned(x.shape(), kGpu);
    ops::activation_backward(ops::Cuda{}, kind, 0.0f, y_cpu.to(kGpu), grad.to(kGpu), grad_gpu);
    CHECK(relative_error(grad_gpu, grad_cpu) < 1e-6);
    CHECK(bf16::activation_error(kGpu, kind) <= 1.0);
  }
}

TEST_CASE("GPU math ops record nodes whose backward runs on the GPU") {
  Tensor x = random_tensor({5, 4}, 12, 0.5, 2.0, kGpu).set_requires_grad(true);
  const Tensor y = ops::log(ops::sqrt(ops::exp(x)));  // = x / 2
  CHECK(y.device() == kGpu);
  y.backward(Tensor::full({5, 4}, 1.0, DType::Float32, kGpu));
  for (float g : x.grad().to_vector<float>()) CHECK(g == doctest::Approx(0.5).epsilon(1e-5));
}
