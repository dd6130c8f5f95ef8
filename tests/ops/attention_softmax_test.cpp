#include <doctest/doctest.h>

#include "core/error.hpp"
#include "ops/activation.hpp"
#include "ops/attention_softmax.hpp"
#include "ops/cast.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/sddmm.hpp"
#include "tests/support/bf16_spmm_checks.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// The unfused composition the op stands for.
Tensor composed(const Adjacency& a, const Tensor& x, const Tensor& y, float slope) {
  return ops::edge_softmax(a, ops::leaky_relu(ops::sddmm_add(a, x, y), slope));
}

}  // namespace

TEST_CASE("attention_softmax equals edge_softmax of leaky_relu of sddmm_add, forward and backward") {
  uint64_t seed = 900;
  for (const Adjacency& a : {random_graph(1, 1, 1), random_graph(20, 6, 2), random_graph(60, 400, 3),
                             rmat_graph(256, 2000, 4), hub_graph(300, 250, 9)}) {
    for (int64_t heads : {1, 3, 8}) {
      for (float slope : {0.2f, 0.0f}) {
        CAPTURE(a.nnz());
        CAPTURE(heads);
        CAPTURE(slope);
        const Tensor x = random_tensor({a.num_rows(), heads}, ++seed, -3.0, 3.0);
        const Tensor y = random_tensor({a.num_cols(), heads}, ++seed, -3.0, 3.0);
        const Tensor weights = random_tensor({a.nnz(), heads}, ++seed);
        std::vector<Tensor> outputs, grads;
        for (bool fused : {true, false}) {
          Tensor xx = x.clone().set_requires_grad(true);
          Tensor yy = y.clone().set_requires_grad(true);
          const Tensor out = fused ? ops::attention_softmax(a, xx, yy, slope) : composed(a, xx, yy, slope);
          out.backward(weights);
          outputs.push_back(out.detach());
          grads.push_back(xx.grad());
          grads.push_back(yy.grad());
        }
        CHECK(outputs[0].shape() == Shape{a.nnz(), heads});
        CHECK(outputs[0].dtype() == DType::Float32);
        CHECK(relative_error(outputs[0], outputs[1]) < 1e-6);
        CHECK(relative_error(grads[0], grads[2]) < 1e-5);
        CHECK(relative_error(grads[1], grads[3]) < 1e-5);
      }
    }
  }
}

TEST_CASE("attention_softmax gradient matches finite differences") {
  const Adjacency a = random_graph(12, 40, 61);
  for (int64_t heads : {1, 4}) {
    // y of either sign at least 0.5 from 0 and x within ±0.2: every sum is
    // at least 0.3 from LeakyReLU's kink (differences there are not
    // derivatives), and a row mixes both slopes, so the gradient of x is not
    // zero (with one slope a row's scores shift together and x cancels).
    Tensor x = random_tensor({a.num_rows(), heads}, 62, -0.2, 0.2).set_requires_grad(true);
    Tensor y = random_tensor({a.num_cols(), heads}, 63, -1.0, 1.0);
    float* values = y.data<float>();
    for (int64_t i = 0; i < y.numel(); ++i) values[i] += values[i] < 0.0f ? -0.5f : 0.5f;
    y.set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::attention_softmax(a, in[0], in[1], 0.2f); },
                         {x, y}) < 1e-2);
  }
}

TEST_CASE("attention_softmax on bfloat16 x and y: bfloat16 attention, the composition's float one rounded once") {
  const Adjacency a = rmat_graph(512, 6000, 66);
  const int64_t heads = 8;
  Tensor x = ops::cast(random_tensor({a.num_rows(), heads}, 67, -3.0, 3.0), DType::BFloat16).set_requires_grad(true);
  Tensor y = ops::cast(random_tensor({a.num_cols(), heads}, 68, -3.0, 3.0), DType::BFloat16).set_requires_grad(true);
  const Tensor fused = ops::attention_softmax(a, x, y, 0.2f);
  REQUIRE(fused.dtype() == DType::BFloat16);
  // The composition keeps float32 scores and attention: the same float
  // arithmetic in another order, so rounding it moves at most one ulp.
  const Tensor reference = composed(a, x.detach(), y.detach(), 0.2f);
  REQUIRE(reference.dtype() == DType::Float32);
  CHECK(bf16::max_ulp_distance(fused, ops::cast(reference, DType::BFloat16)) <= 1);
  // The gradients keep x's and y's dtype (their values against float64:
  // bf16::attention_softmax_error, tests/ops/bf16_ops_test.cpp).
  fused.backward(ops::cast(random_tensor(fused.shape(), 69), DType::BFloat16));
  CHECK(x.grad().dtype() == DType::BFloat16);
  CHECK(y.grad().dtype() == DType::BFloat16);
}

TEST_CASE("attention_softmax refuses bad arguments with InvalidArgument") {
  const Adjacency a = random_graph(10, 30, 71);
  const Tensor x = random_tensor({10, 2}, 72);
  CHECK_THROWS_AS(ops::attention_softmax(a, x, random_tensor({10, 3}, 73), 0.2f), InvalidArgument);
  CHECK_THROWS_AS(ops::attention_softmax(a, x, random_tensor({9, 2}, 73), 0.2f), InvalidArgument);
  CHECK_THROWS_AS(ops::attention_softmax(a, random_tensor({10, 2, 1}, 74), random_tensor({10, 2, 1}, 74), 0.2f),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::attention_softmax(a, x, ops::cast(x, DType::BFloat16), 0.2f), InvalidArgument);
  CHECK_THROWS_AS(ops::attention_softmax(a, x, x, -0.1f), InvalidArgument);
  CHECK_THROWS_AS(ops::attention_softmax(a, Tensor(), x, 0.2f), InvalidArgument);
}
