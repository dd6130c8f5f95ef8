#include <doctest/doctest.h>

#include "ops/determinism.hpp"
#include "ops/gemm_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/matmul.hpp"
#include "ops/matmul_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

struct Extents {
  int64_t m, k, n;
};
const Extents kExtents[] = {{1, 1, 1}, {3, 17, 1}, {17, 3, 257}, {257, 1433, 16}, {2708, 16, 7}, {5, 0, 3}};

// Storage shape of an operand whose logical (op) shape is rows × cols.
Shape stored(int64_t rows, int64_t cols, bool transposed) { return transposed ? Shape{cols, rows} : Shape{rows, cols}; }

}  // namespace

TEST_CASE("cuBLAS matmul matches the CPU backend for every transpose combination on poisoned outputs") {
  for (const Extents e : kExtents) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CAPTURE(e.m);
        CAPTURE(e.k);
        CAPTURE(e.n);
        CAPTURE(ta);
        CAPTURE(tb);
        const Tensor a = random_tensor(stored(e.m, e.k, ta), 1);
        const Tensor b = random_tensor(stored(e.k, e.n, tb), 2);
        Tensor c_cpu = Tensor::empty({e.m, e.n});
        ops::matmul_forward(ops::Cpu{}, a, ta, b, tb, c_cpu);
        Tensor c_gpu = poisoned({e.m, e.n}, kGpu);
        ops::matmul_forward(ops::Cuda{}, a.to(kGpu), ta, b.to(kGpu), tb, c_gpu);
        CHECK(relative_error(c_gpu, c_cpu) < 1e-5);
      }
    }
  }
}

TEST_CASE("TF32 matmul stays within TF32 rounding of the fp32 result, and the switch is honoured") {
  const Tensor a = random_tensor({257, 1433}, 3);
  const Tensor b = random_tensor({1433, 17}, 4);
  const Tensor reference = ops::matmul(a, b);
  ops::set_allow_tf32(true);
  const Tensor tf32 = ops::matmul(a.to(kGpu), b.to(kGpu));
  ops::set_allow_tf32(false);
  const Tensor fp32 = ops::matmul(a.to(kGpu), b.to(kGpu));
  CHECK(relative_error(tf32, reference) < 5e-3);
  CHECK(relative_error(fp32, reference) < 1e-5);
}

TEST_CASE("GPU matmul backward matches the CPU gradients") {
  const Tensor a0 = random_tensor({17, 33}, 5);
  const Tensor b0 = random_tensor({33, 3}, 6);
  const Tensor g = random_tensor({17, 3}, 7);
  Tensor a_cpu = a0.clone().set_requires_grad(true), b_cpu = b0.clone().set_requires_grad(true);
  ops::matmul(a_cpu, b_cpu).backward(g);
  Tensor a_gpu = a0.to(kGpu).set_requires_grad(true), b_gpu = b0.to(kGpu).set_requires_grad(true);
  ops::matmul(a_gpu, b_gpu).backward(g.to(kGpu));
  CHECK(relative_error(a_gpu.grad(), a_cpu.grad()) < 1e-5);
  CHECK(relative_error(b_gpu.grad(), b_cpu.grad()) < 1e-5);
}

TEST_CASE("GPU matmul refuses operands on different devices") {
  CHECK_THROWS_AS(ops::matmul(Tensor::zeros({2, 2}), Tensor::zeros({2, 2}, DType::Float32, kGpu)), InvalidArgument);
}

TEST_CASE("GPU matmul times cuBLASLt's candidates once per shape, none in deterministic mode, and computes the product") {
  // A shape no other case uses: its first call outside deterministic mode times the candidates.
  const Tensor a = random_tensor({611, 229}, 11);
  const Tensor b = random_tensor({229, 37}, 12);
  Tensor expected = Tensor::empty({611, 37});
  ops::matmul_forward(ops::Cpu{}, a, false, b, false, expected);
  const Tensor a_gpu = a.to(kGpu), b_gpu = b.to(kGpu);
  const auto product = [&] {
    Tensor c = poisoned({611, 37}, kGpu);
    ops::matmul_forward(ops::Cuda{}, a_gpu, false, b_gpu, false, c);
    return c;
  };
  const auto timed_by = [](const auto& call) {
    const int64_t before = ops::candidates_timed();
    call();
    return ops::candidates_timed() - before;
  };
  ops::set_deterministic(true);
  Tensor c;
  CHECK(timed_by([&] { c = product(); }) == 0);  // cuBLAS's default
  CHECK(relative_error(c, expected) < 1e-5);
  ops::set_deterministic(false);
  const int64_t first = timed_by([&] { c = product(); });
  CHECK(first >= 1);
  CHECK(relative_error(c, expected) < 1e-5);
  CHECK(timed_by([&] { c = product(); }) == 0);  // the kept choice
  CHECK(relative_error(c, expected) < 1e-5);
  ops::set_deterministic(true);
  CHECK(timed_by([&] { c = product(); }) == 0);  // deterministic again: nothing timed
  CHECK(relative_error(c, expected) < 1e-5);
  ops::set_deterministic(false);
}

TEST_CASE("GPU matmul: stored GEMM choices run without timing; a stale or rejected one is timed again") {
  // 79 columns: past the narrow kernels (dense_matmul_narrow_test.cpp), so the choice is cuBLASLt's.
  const Tensor a = random_tensor({517, 191}, 13);
  const Tensor b = random_tensor({191, 79}, 14);
  Tensor expected = Tensor::empty({517, 79});
  ops::matmul_forward(ops::Cpu{}, a, false, b, false, expected);
  const Tensor a_gpu = a.to(kGpu), b_gpu = b.to(kGpu);
  const auto timed_product = [&] {
    Tensor c = poisoned({517, 79}, kGpu);
    const int64_t before = ops::candidates_timed();
    ops::matmul_forward(ops::Cuda{}, a_gpu, false, b_gpu, false, c);
    const int64_t timed = ops::candidates_timed() - before;
    CHECK(relative_error(c, expected) < 1e-5);
    return timed;
  };
  ops::forget_gemm_choices();
  CHECK(timed_product() >= 1);
  const ops::KernelChoiceMap stored = ops::gemm_choices();
  REQUIRE(stored.size() == 1);
  CHECK(stored.begin()->first.starts_with("gemm:"));
  CHECK(stored.begin()->second.starts_with("lt"));

  ops::forget_gemm_choices();
  ops::import_gemm_choices(stored);
  CHECK(timed_product() == 0);  // the stored algorithm, as a later process with the cache folder runs it
  CHECK(ops::gemm_choices() == stored);

  const auto rewritten = [&](const auto& edit) {
    ops::KernelChoiceMap changed;
    for (const auto& [key, variant] : stored) changed[key] = edit(variant);
    return changed;
  };
  // Another cuBLASLt version's algorithm, and words cuBLASLt does not accept: timed again.
  ops::forget_gemm_choices();
  ops::import_gemm_choices(rewritten([](const std::string& variant) { return "lt0" + variant.substr(variant.find(':')); }));
  CHECK(timed_product() >= 1);
  ops::forget_gemm_choices();
  ops::import_gemm_choices(rewritten([](const std::string& variant) {
    std::string words = variant;
    for (std::size_t i = variant.find(':') + 1; i < words.size(); ++i) words[i] = words[i] == '.' ? '.' : 'f';
    return words;
  }));
  CHECK(timed_product() >= 1);
  ops::forget_gemm_choices();
  ops::import_gemm_choices(rewritten([](const std::string& variant) { return variant.substr(0, variant.size() - 3); }));
  CHECK(timed_product() >= 1);
}
