// The 3xTF32 products with a narrow output (ops/cuda/gemm_narrow.hpp), forced
// through stored GEMM choices: a shape whose stored choice is "sgnn:3xtf32"
// runs them without timing, whichever candidate this GPU's timing would pick.
#include <doctest/doctest.h>

#include "ops/determinism.hpp"
#include "ops/gemm_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/matmul_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

constexpr const char* kNarrow = "sgnn:3xtf32";

// Every choice of this process stored as the narrow kernels, read back as a later process would.
void store_all_as_narrow() {
  ops::KernelChoiceMap narrow;
  for (const auto& [key, variant] : ops::gemm_choices()) narrow[key] = kNarrow;
  ops::forget_gemm_choices();
  ops::import_gemm_choices(narrow);
}

}  // namespace

TEST_CASE("GPU matmul: the 3xTF32 narrow products and weight gradients match the CPU at FP32 accuracy") {
  struct Case {
    int64_t rows, k, n;
  };
  // k odd (single loads), 2 mod 4 (pairs) and 0 mod 4 (quads); n of 1 to 8 tiles, partial tiles; rows past 16-row
  // tiles and 8-row steps; k past 32-column chunks and strips.
  const Case cases[] = {{1, 1, 1},       {17, 3, 7},       {1000, 33, 41},   {5003, 602, 41}, {4099, 64, 64},
                        {2053, 5, 8},    {20011, 130, 17}, {300, 1433, 16},  {70001, 38, 2},  {999, 257, 57}};
  ops::set_deterministic(false);
  for (const Case& c : cases) {
    CAPTURE(c.rows);
    CAPTURE(c.k);
    CAPTURE(c.n);
    const Tensor x = random_tensor({c.rows, c.k}, 21 + static_cast<uint64_t>(c.k));
    const Tensor w = random_tensor({c.k, c.n}, 22 + static_cast<uint64_t>(c.n));
    const Tensor gradient = random_tensor({c.rows, c.n}, 23 + static_cast<uint64_t>(c.rows));
    Tensor product_cpu = Tensor::empty({c.rows, c.n});
    ops::matmul_forward(ops::Cpu{}, x, false, w, false, product_cpu);
    Tensor weight_gradient_cpu = Tensor::empty({c.k, c.n});
    ops::matmul_forward(ops::Cpu{}, x, true, gradient, false, weight_gradient_cpu);

    const Tensor x_gpu = x.to(kGpu), w_gpu = w.to(kGpu), gradient_gpu = gradient.to(kGpu);
    const auto run = [&](Tensor& product, Tensor& weight_gradient) {
      product = poisoned({c.rows, c.n}, kGpu);
      weight_gradient = poisoned({c.k, c.n}, kGpu);
      ops::matmul_forward(ops::Cuda{}, x_gpu, false, w_gpu, false, product);
      ops::matmul_forward(ops::Cuda{}, x_gpu, true, gradient_gpu, false, weight_gradient);
    };
    ops::forget_gemm_choices();
    Tensor product, weight_gradient;
    run(product, weight_gradient);  // chooses both shapes
    REQUIRE(ops::gemm_choices().size() == 2);
    store_all_as_narrow();
    const int64_t timed_before = ops::candidates_timed();
    run(product, weight_gradient);
    CHECK(ops::candidates_timed() == timed_before);
    for (const auto& [key, variant] : ops::gemm_choices()) CHECK(variant == kNarrow);
    // One TF32 product per term, or dropping one of the two small ones, is off by 1e-4 or more.
    CHECK(relative_error(product, product_cpu) < 1e-5);
    CHECK(relative_error(weight_gradient, weight_gradient_cpu) < 1e-5);
  }
  ops::forget_gemm_choices();
}

TEST_CASE("GPU matmul: a stored narrow choice for a shape the narrow kernels do not take is timed again") {
  const Tensor x = random_tensor({517, 191}, 31);
  const Tensor w = random_tensor({191, 79}, 32);  // 79 > 64 output columns
  Tensor expected = Tensor::empty({517, 79});
  ops::matmul_forward(ops::Cpu{}, x, false, w, false, expected);
  const Tensor x_gpu = x.to(kGpu), w_gpu = w.to(kGpu);
  const auto timed_product = [&] {
    Tensor c = poisoned({517, 79}, kGpu);
    const int64_t before = ops::candidates_timed();
    ops::matmul_forward(ops::Cuda{}, x_gpu, false, w_gpu, false, c);
    CHECK(relative_error(c, expected) < 1e-5);
    return ops::candidates_timed() - before;
  };
  ops::forget_gemm_choices();
  CHECK(timed_product() >= 1);
  store_all_as_narrow();
  CHECK(timed_product() >= 1);
  for (const auto& [key, variant] : ops::gemm_choices()) CHECK(variant.starts_with("lt"));
  ops::forget_gemm_choices();
}
