#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/generator.hpp"
#include "ops/cast.hpp"
#include "ops/classification.hpp"
#include "ops/dropout.hpp"
#include "ops/matmul.hpp"
#include "ops/nonfinite_check.hpp"
#include "ops/optimizer_step.hpp"
#include "ops/sddmm.hpp"
#include "ops/shape.hpp"
#include "tests/support/bf16_checks.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {
const Device kCpu = Device::cpu();
Tensor to_bf16(const Tensor& x) { return ops::cast(x, DType::BFloat16); }
}  // namespace

// The bounds are stated in tests/support/bf16_checks.hpp (u = 2^-8, e = 2^-24).
TEST_CASE("BF16 cast rounds within 2^-8, converts back exactly, and differentiates as the cast back") {
  CHECK(bf16::cast_error(kCpu) <= 1.0);
  CHECK(ops::cast(random_tensor({3}, 1), DType::Float32).dtype() == DType::Float32);
  const Tensor x = random_tensor({3}, 1);
  CHECK(ops::cast(x, DType::Float32).shares_storage_with(x));
  CHECK_THROWS_AS(ops::cast(Tensor::zeros({2}, DType::Int32), DType::BFloat16), InvalidArgument);
  CHECK_THROWS_AS(ops::cast(x, DType::Int64), InvalidArgument);
  Tensor into = Tensor::empty({4}, DType::BFloat16);
  CHECK_THROWS_AS(ops::cast_into(into, x), InvalidArgument);  // shapes differ
}

TEST_CASE("BF16 matmul against float64: forward and both gradients within (u + (k+2)e)·Σ|a||b|") {
  for (const auto& [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {37, 53, 29}, {200, 300, 16}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    const double worst = bf16::matmul_error(kCpu, m, k, n);
    MESSAGE("matmul ", m, "x", k, "x", n, ": worst error / bound ", worst);
    CHECK(worst <= 1.0);
  }
  CHECK_THROWS_WITH_AS(ops::matmul(to_bf16(random_tensor({2, 3}, 1)), random_tensor({3, 2}, 2)),
                       doctest::Contains("bfloat16"), InvalidArgument);
}

TEST_CASE("BF16 matmul_weight: bfloat16 product through the weight copy, float32 weight gradient") {
  const double worst = bf16::matmul_weight_error(kCpu, 300, 40, 16);
  MESSAGE("matmul_weight: worst error / bound ", worst);
  CHECK(worst <= 1.0);
  const Tensor x = random_tensor({5, 4}, 3);
  const Tensor w = random_tensor({4, 3}, 4);
  // float32 x: the plain product; the copy is not needed.
  CHECK(ops::matmul_weight(x, w, Tensor()).to_vector<float>() == ops::matmul(x, w).to_vector<float>());
  // bfloat16 x: exactly the bfloat16 product with the copy.
  const Tensor xb = to_bf16(x);
  const Tensor copy = to_bf16(w);
  const std::vector<double> expected = to_double(ops::matmul(xb, copy));
  CHECK(to_double(ops::matmul_weight(xb, w, copy)) == expected);
  CHECK_THROWS_AS(ops::matmul_weight(xb, copy, copy), InvalidArgument);  // the master must be float32
  CHECK_THROWS_AS(ops::matmul_weight(xb, w, to_bf16(random_tensor({3, 4}, 5))), InvalidArgument);  // copy's shape
  CHECK_THROWS_AS(ops::matmul_weight(xb, w, Tensor()), InvalidArgument);                           // no copy
}

TEST_CASE("BF16 add and mul with a float32 bias: bfloat16 outputs, float32 bias gradients") {
  for (const auto& [rows, n] : {std::pair<int64_t, int64_t>{1, 1}, {300, 7}, {2000, 64}}) {
    CAPTURE(rows);
    CAPTURE(n);
    CHECK(bf16::elementwise_error(kCpu, rows, n) <= 1.0);
  }
}

TEST_CASE("BF16 activations, bias + activation, softmax, loss and reductions against float64") {
  CHECK(bf16::activation_error(kCpu) <= 1.0);
  CHECK(bf16::bias_activation_error(kCpu, 1000, 33) <= 1.0);
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {50, 7}, {9, 300}}) {
    CAPTURE(cols);
    CHECK(bf16::softmax_error(kCpu, rows, cols) <= 1.0);
  }
  CHECK(bf16::loss_error(kCpu, 2708, 7) <= 1.0);
  CHECK(bf16::loss_error(kCpu, 40, 257) <= 1.0);
  CHECK(bf16::reduce_error(kCpu, 7, 1000, 1) <= 1.0);
  CHECK(bf16::reduce_error(kCpu, 3, 500, 65) <= 1.0);
}

TEST_CASE("BF16 edge softmax computes in float: within u·|ref| of float64, heads 1 and 8, hub row") {
  CHECK(bf16::edge_softmax_error(random_graph(60, 400, 3), 1) <= 1.0);
  CHECK(bf16::edge_softmax_error(random_graph(60, 400, 4), 8) <= 1.0);
  CHECK(bf16::edge_softmax_error(hub_graph(300, 250, 9), 4) <= 1.0);
}

TEST_CASE("BF16 attention softmax: bfloat16 attention and scores' gradient, float arithmetic, heads 1 and 8, hub row") {
  CHECK(bf16::attention_softmax_error(random_graph(60, 400, 3), 1) <= 1.0);
  CHECK(bf16::attention_softmax_error(random_graph(60, 400, 4), 8) <= 1.0);
  CHECK(bf16::attention_softmax_error(random_graph(20, 6, 2), 3) <= 1.0);  // empty rows, heads not a power of two
  CHECK(bf16::attention_softmax_error(hub_graph(300, 250, 9), 4) <= 1.0);
}

TEST_CASE("BF16 sddmm_dot and sddmm_add: float32 outputs within float accumulation of float64, bfloat16 gradients") {
  CHECK(bf16::sddmm_dot_error(random_graph(1, 1, 5), 1, 1) <= 1.0);
  CHECK(bf16::sddmm_dot_error(random_graph(60, 400, 6), 1, 17) <= 1.0);
  CHECK(bf16::sddmm_dot_error(random_graph(60, 400, 7), 4, 8) <= 1.0);
  CHECK(bf16::sddmm_dot_error(hub_graph(300, 250, 9), 2, 64) <= 1.0);
  CHECK(bf16::sddmm_add_error(random_graph(60, 400, 8), 1) <= 1.0);
  CHECK(bf16::sddmm_add_error(hub_graph(300, 250, 9), 8) <= 1.0);
}

TEST_CASE("BF16 sddmm ops refuse mixed dtypes") {
  const Adjacency graph = random_graph(20, 60, 10);
  const Tensor x = to_bf16(random_tensor({20, 8}, 1));
  const Tensor y = random_tensor({20, 8}, 2);
  CHECK_THROWS_AS(ops::sddmm_dot(graph, x, y), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_add(graph, x, y), InvalidArgument);
  CHECK(ops::sddmm_dot(graph, x, to_bf16(y)).dtype() == DType::Float32);
  CHECK(ops::sddmm_add(graph, x, to_bf16(y)).dtype() == DType::Float32);
}

TEST_CASE("BF16 dropout drops the same elements as float32 dropout and scales in float, rounding once") {
  const Tensor x = random_tensor({1001}, 7, -3.0, 3.0);
  const Tensor xb = to_bf16(x);
  Generator first(42);
  Generator second(42);
  const std::vector<float> wide = ops::dropout(ops::cast(xb, DType::Float32), 0.3f, true, first).to_vector<float>();
  const Tensor narrow = ops::dropout(xb, 0.3f, true, second);
  REQUIRE(narrow.dtype() == DType::BFloat16);
  const std::vector<bfloat16> values = narrow.to_vector<bfloat16>();
  for (std::size_t i = 0; i < wide.size(); ++i) CHECK(values[i].bits == bfloat16(wide[i]).bits);
}

TEST_CASE("BF16 logits: confusion counts, NaN search, concat") {
  const Tensor logits = to_bf16(random_tensor({50, 7}, 8, -3.0, 3.0));
  const Tensor labels = random_indices({50}, 9, 0, 7, DType::Int32);
  const std::vector<int64_t> narrow = ops::confusion_matrix(logits, labels, Tensor(), 7).to_vector<int64_t>();
  const std::vector<int64_t> wide =
      ops::confusion_matrix(ops::cast(logits, DType::Float32), labels, Tensor(), 7).to_vector<int64_t>();
  CHECK(narrow == wide);

  std::vector<bfloat16> values(100, bfloat16(1.0f));
  values[37] = bfloat16(std::numeric_limits<float>::infinity());
  values[80] = bfloat16(std::numeric_limits<float>::quiet_NaN());
  const ops::NonfiniteReport report = ops::find_nonfinite(Tensor::from_vector(values, {100}));
  CHECK(report.count == 2);
  CHECK(report.first_index == 37);
  CHECK(std::isinf(report.first_value));

  const Tensor a = to_bf16(random_tensor({3, 2}, 10));
  const Tensor b = to_bf16(random_tensor({3, 5}, 11));
  const Tensor joined = ops::concat({a, b}, 1);
  CHECK(joined.dtype() == DType::BFloat16);
  CHECK(to_double(joined)[2] == to_double(b)[0]);
  CHECK_THROWS_AS(ops::concat({a, random_tensor({3, 5}, 12)}, 1), InvalidArgument);  // mixed dtypes
}

TEST_CASE("Adam writes the updated parameter rounded to its bfloat16 copy in the same pass") {
  Tensor parameter = random_tensor({300}, 13);
  const Tensor gradient = random_tensor({300}, 14);
  Tensor first;
  Tensor second;
  Tensor copy = Tensor::zeros({300}, DType::BFloat16);
  ops::AdamUpdate update{&parameter, &gradient, &first, &second, ops::AdamHyperparameters{0.1f}, 1, nullptr, &copy};
  ops::adam_step_many({update});
  const std::vector<float> p = parameter.to_vector<float>();
  const std::vector<bfloat16> c = copy.to_vector<bfloat16>();
  for (std::size_t i = 0; i < p.size(); ++i) CHECK(c[i].bits == bfloat16(p[i]).bits);
  Tensor wrong = Tensor::zeros({300});
  update.compute_copy = &wrong;
  CHECK_THROWS_AS(ops::adam_step_many({update}), InvalidArgument);
}
