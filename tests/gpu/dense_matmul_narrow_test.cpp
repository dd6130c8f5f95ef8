// The 3xTF32 product with a narrow output (ops/cuda/gemm_narrow.hpp), forced
// through stored GEMM choices: a shape whose stored choice is "sgnn:3xtf32"
// runs it without timing, whichever candidate this GPU's timing would pick.
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

// Every choice of this process stored as the narrow kernel, read back as a later process would.
void store_all_as_narrow() {
  ops::KernelChoiceMap narrow;
  for (const auto& [key, variant] : ops::gemm_choices()) narrow[key] = kNarrow;
  ops::forget_gemm_choices();
  ops::import_gemm_choices(narrow);
}

// c = x · w, or c = xᵀ · w with `transposed`, on the GPU into a poisoned output; the candidates it timed.
int64_t timed_product(const Tensor& x, bool transposed, const Tensor& w, Tensor& c) {
  c = poisoned({transposed ? x.size(1) : x.size(0), w.size(1)}, kGpu);
  const int64_t before = ops::candidates_timed();
  ops::matmul_forward(ops::Cuda{}, x, transposed, w, false, c);
  return ops::candidates_timed() - before;
}

}  // namespace

TEST_CASE("GPU matmul: the 3xTF32 narrow product matches the CPU at FP32 accuracy on every shape it takes") {
  struct Case {
    int64_t rows, k, n;
  };
  // k odd (single loads) and even (pairs), past 32-column chunks; n of 1 to 8 tiles, partial tiles; rows past
  // 16-row tiles and past one pass of the grid's warps.
  const Case cases[] = {{1, 1, 1},     {17, 3, 7},      {1000, 33, 41},  {5003, 602, 41}, {4099, 64, 64},
                        {2053, 5, 8},  {20011, 130, 17}, {300, 1433, 16}, {70001, 38, 2},  {999, 257, 57}};
  ops::set_deterministic(false);
  for (const Case& c : cases) {
    CAPTURE(c.rows);
    CAPTURE(c.k);
    CAPTURE(c.n);
    const Tensor x = random_tensor({c.rows, c.k}, 21 + static_cast<uint64_t>(c.k));
    const Tensor w = random_tensor({c.k, c.n}, 22 + static_cast<uint64_t>(c.n));
    Tensor expected = Tensor::empty({c.rows, c.n});
    ops::matmul_forward(ops::Cpu{}, x, false, w, false, expected);
    const Tensor x_gpu = x.to(kGpu), w_gpu = w.to(kGpu);
    ops::forget_gemm_choices();
    Tensor product;
    CHECK(timed_product(x_gpu, false, w_gpu, product) >= 1);  // chooses the shape
    REQUIRE(ops::gemm_choices().size() == 1);
    store_all_as_narrow();
    CHECK(timed_product(x_gpu, false, w_gpu, product) == 0);
    CHECK(ops::gemm_choices().begin()->second == kNarrow);
    // One TF32 product per term, or dropping one of the two small ones, is off by 1e-4 or more.
    CHECK(relative_error(product, expected) < 1e-5);
  }
  ops::forget_gemm_choices();
}

TEST_CASE("GPU matmul: a stored narrow choice for a shape the narrow kernel does not take is timed again") {
  struct Case {
    int64_t rows, k, n;
    bool transposed;
  };
  // 79 > 64 output columns; a weight gradient xᵀ·dY (transposed x).
  const Case cases[] = {{517, 191, 79, false}, {517, 191, 29, true}};
  for (const Case& c : cases) {
    CAPTURE(c.n);
    CAPTURE(c.transposed);
    const Tensor x = random_tensor({c.rows, c.k}, 31);
    const Tensor w = random_tensor({c.transposed ? c.rows : c.k, c.n}, 32);
    Tensor expected = Tensor::empty({c.transposed ? c.k : c.rows, c.n});
    ops::matmul_forward(ops::Cpu{}, x, c.transposed, w, false, expected);
    const Tensor x_gpu = x.to(kGpu), w_gpu = w.to(kGpu);
    ops::forget_gemm_choices();
    Tensor product;
    CHECK(timed_product(x_gpu, c.transposed, w_gpu, product) >= 1);
    CHECK(relative_error(product, expected) < 1e-5);
    store_all_as_narrow();
    CHECK(timed_product(x_gpu, c.transposed, w_gpu, product) >= 1);
    CHECK(relative_error(product, expected) < 1e-5);
    for (const auto& [key, variant] : ops::gemm_choices()) CHECK(variant.starts_with("lt"));
  }
  ops::forget_gemm_choices();
}
