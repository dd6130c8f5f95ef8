#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "core/generator.hpp"
#include "core/sparse_rows.hpp"
#include "ops/determinism.hpp"
#include "ops/dropout.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"
#include "ops/sparse_input.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// [rows, cols] on the host with about 1 % of its entries non-zero (negative ones too).
Tensor bag_of_words(int64_t rows, int64_t cols, uint64_t seed) {
  const Tensor noise = random_tensor({rows, cols}, seed, 0.0, 1.0);
  Tensor x = random_tensor({rows, cols}, seed + 1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (noise.data<float>()[i] >= 0.01f) x.data<float>()[i] = 0.0f;
  }
  return x;
}

}  // namespace

TEST_CASE("GPU products over input features' non-zeros: measured once per width, equal to the dense product") {
  const Tensor host = bag_of_words(2500, 3000, 21);
  Tensor x = host.to(kGpu);
  REQUIRE(ops::attach_sparse_rows(x));
  const std::shared_ptr<const SparseRows> rows = x.sparse_rows();
  CHECK(rows->pattern->matrix().device() == kGpu);
  // The same arrays as the host's build: the GPU tensor is read back once.
  const std::shared_ptr<const SparseRows> host_rows = make_sparse_rows(host, 0.25);
  REQUIRE(host_rows);
  CHECK(relative_error(rows->values.to(Device::cpu()), host_rows->values) == 0.0);
  CHECK(relative_error(rows->pattern->positions().to(Device::cpu()), host_rows->pattern->positions()) == 0.0);
  Tensor dense_features = random_tensor({300, 40}, 22).to(kGpu);
  CHECK_FALSE(ops::attach_sparse_rows(dense_features));
  CHECK_FALSE(dense_features.sparse_rows());

  Generator generator(5);
  const Tensor dropped = ops::dropout(x, 0.5f, true, generator);
  REQUIRE(dropped.sparse_rows());
  {
    const Tensor dense = dropped.to(Device::cpu());
    const Tensor values = dropped.sparse_rows()->values.to(Device::cpu());
    const Tensor positions = rows->pattern->positions().to(Device::cpu());
    int64_t same = 0;
    for (int64_t k = 0; k < values.numel(); ++k) {
      const float at = dense.data<float>()[positions.data<int64_t>()[k]];
      same += std::memcmp(&at, &values.data<float>()[k], sizeof(float)) == 0;
    }
    CHECK(same == values.numel());
  }

  for (const int64_t width : {16, 64}) {
    Tensor weight = random_tensor({3000, width}, 23 + static_cast<uint64_t>(width)).to(kGpu);
    weight.set_requires_grad(true);
    const int64_t before = ops::candidates_timed();
    const bool chosen = ops::sparse_product_chosen(dropped, weight);
    CHECK(ops::candidates_timed() - before >= 2);  // both products timed, once
    CHECK(rows->pattern->sparse_product_faster(width) == chosen);
    const int64_t after_choice = ops::candidates_timed();
    const Tensor out = ops::matmul_weight(dropped, weight, Tensor());
    CHECK(ops::candidates_timed() == after_choice);
    ops::sum(out).backward();
    // Against the product of the plain (view-less) tensor, computed on the CPU.
    const Tensor plain = dropped.to(Device::cpu());
    Tensor cpu_weight = weight.detach().to(Device::cpu());
    cpu_weight.set_requires_grad(true);
    const Tensor expected = ops::matmul(plain, cpu_weight);
    ops::sum(expected).backward();
    CHECK(relative_error(out.to(Device::cpu()), expected) < 1e-5);
    CHECK(relative_error(weight.grad().to(Device::cpu()), cpu_weight.grad()) < 1e-5);
    MESSAGE("width " << width << ": the product over the non-zeros " << std::string(chosen ? "chosen" : "not chosen"));
  }
  // A deterministic run does not let a timing pick the product.
  ops::set_deterministic(true);
  CHECK_FALSE(ops::sparse_product_chosen(x, random_tensor({3000, 16}, 30).to(kGpu)));
  ops::set_deterministic(false);
}
