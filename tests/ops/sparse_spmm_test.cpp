#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/bfloat16.hpp"

#include "ops/cast.hpp"
#include "ops/spmm.hpp"
#include "ops/spmm_backend.hpp"
#include "tests/support/bf16_spmm_checks.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// C = A·B through a dense float64 A per head: values [nnz · heads] (empty = 1),
// b [n_cols, heads, features] -> [n_rows, heads, features].
std::vector<double> dense_spmm(const Adjacency& a, const std::vector<double>& values, int64_t heads,
                               int64_t features, const std::vector<double>& b) {
  const EdgeCoordinates edges = edge_coordinates(a);
  const auto rows = static_cast<std::size_t>(a.num_rows());
  const auto cols = static_cast<std::size_t>(a.num_cols());
  const auto h_count = static_cast<std::size_t>(heads);
  const auto f_count = static_cast<std::size_t>(features);
  std::vector<double> dense(rows * cols * h_count, 0.0);
  for (std::size_t e = 0; e < edges.row.size(); ++e) {
    for (std::size_t h = 0; h < h_count; ++h) {
      const double value = values.empty() ? 1.0 : values[e * h_count + h];
      dense[(h * rows + static_cast<std::size_t>(edges.row[e])) * cols + static_cast<std::size_t>(edges.column[e])] =
          value;
    }
  }
  std::vector<double> c(rows * h_count * f_count, 0.0);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t h = 0; h < h_count; ++h) {
      for (std::size_t j = 0; j < cols; ++j) {
        const double value = dense[(h * rows + i) * cols + j];
        for (std::size_t f = 0; f < f_count; ++f) {
          c[(i * h_count + h) * f_count + f] += value * b[(j * h_count + h) * f_count + f];
        }
      }
    }
  }
  return c;
}

std::vector<Adjacency> test_graphs() {
  return {random_graph(1, 1, 1),    random_graph(1, 0, 2),          random_graph(7, 3, 3),
          random_graph(50, 300, 4), random_graph(40, 40, 5, true),  rmat_graph(256, 2000, 6),
          hub_graph(300, 250, 17)};
}

}  // namespace

TEST_CASE("spmm matches a dense float64 reference: pattern, [nnz] and [nnz, H] values") {
  uint64_t seed = 100;
  for (const Adjacency& a : test_graphs()) {
    for (int64_t features : {1, 3, 17}) {
      const Tensor b = random_tensor({a.num_cols(), features}, ++seed);
      CHECK(relative_error(ops::spmm(a, Tensor(), b), dense_spmm(a, {}, 1, features, to_double(b))) < 1e-6);
      const Tensor values = random_tensor({a.nnz()}, ++seed);
      const Tensor c = ops::spmm(a, values, b);
      CHECK(c.shape() == Shape{a.num_rows(), features});
      CHECK(relative_error(c, dense_spmm(a, to_double(values), 1, features, to_double(b))) < 1e-6);
      for (int64_t heads : {1, 8}) {
        const Tensor head_values = random_tensor({a.nnz(), heads}, ++seed);
        const Tensor head_b = random_tensor({a.num_cols(), heads, features}, ++seed);
        const Tensor head_c = ops::spmm(a, head_values, head_b);
        CHECK(head_c.shape() == Shape{a.num_rows(), heads, features});
        CHECK(relative_error(head_c, dense_spmm(a, to_double(head_values), heads, features, to_double(head_b))) <
              1e-6);
      }
    }
  }
}

TEST_CASE("spmm's GCN form uses adjacency.values, or the pattern when there are none") {
  const Adjacency weighted = random_graph(30, 120, 8, true);
  REQUIRE(weighted.has_values());
  const Tensor b = random_tensor({30, 5}, 9);
  CHECK(relative_error(ops::spmm(weighted, b), dense_spmm(weighted, to_double(weighted.values), 1, 5, to_double(b))) <
        1e-6);
  const Adjacency pattern = random_graph(30, 120, 8);
  REQUIRE_FALSE(pattern.has_values());
  CHECK(relative_error(ops::spmm(pattern, b), dense_spmm(pattern, {}, 1, 5, to_double(b))) < 1e-6);
}

TEST_CASE("spmm gradients in b and edge values match finite differences") {
  const Adjacency a = random_graph(6, 16, 21);
  SUBCASE("pattern") {
    Tensor b = random_tensor({6, 3}, 22).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::spmm(a, Tensor(), in[0]); }, {b}) < 1e-2);
  }
  SUBCASE("GCN form") {
    const Adjacency weighted = random_graph(6, 16, 21, true);
    Tensor b = random_tensor({6, 3}, 22).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::spmm(weighted, in[0]); }, {b}) < 1e-2);
  }
  for (int64_t heads : {1, 8}) {
    CAPTURE(heads);
    Tensor values = random_tensor({a.nnz(), heads}, 23).set_requires_grad(true);
    Tensor b = random_tensor({6, heads, 2}, 24).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::spmm(a, in[0], in[1]); }, {values, b}) <
          1e-2);
  }
  Tensor flat_values = random_tensor({a.nnz()}, 25).set_requires_grad(true);
  Tensor b = random_tensor({6, 4}, 26).set_requires_grad(true);
  CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::spmm(a, in[0], in[1]); }, {flat_values, b}) <
        1e-2);
}

TEST_CASE("spmm on Aᵀ reads A's values through the edge map as it reads their gathered copy, bit for bit") {
  const Adjacency a = rmat_graph(500, 6000, 27);
  const std::vector<int32_t> map = a.transpose_to_csr.to_vector<int32_t>();
  int64_t moved = 0;
  for (std::size_t k = 0; k < map.size(); ++k) moved += map[k] != static_cast<int32_t>(k);
  REQUIRE(moved > a.nnz() / 2);  // the orders differ: reading A's order unmapped would be caught
  for (const DType dtype : {DType::Float32, DType::BFloat16}) {
    const int64_t heads = 3, features = 4;
    const Tensor values = ops::cast(random_tensor({a.nnz(), heads}, 28), dtype);
    const Tensor b = ops::cast(random_tensor({a.num_rows(), heads * features}, 29), dtype);
    Tensor gathered = Tensor::empty_like(values);
    ops::gather_edges(ops::Cpu{}, a.transpose_to_csr, values, gathered);
    Tensor through_map = Tensor::empty({a.num_cols(), heads * features}, dtype);
    Tensor from_copy = Tensor::empty({a.num_cols(), heads * features}, dtype);
    ops::spmm_forward(ops::Cpu{}, a.transpose, values, heads, features, b, through_map, nullptr, a.transpose_to_csr);
    ops::spmm_forward(ops::Cpu{}, a.transpose, gathered, heads, features, b, from_copy);
    CAPTURE(dtype_name(dtype));
    CHECK(relative_error(ops::cast(through_map, DType::Float32), ops::cast(from_copy, DType::Float32)) == 0.0);
    Tensor unmapped = Tensor::empty({a.num_cols(), heads * features}, dtype);
    ops::spmm_forward(ops::Cpu{}, a.transpose, values, heads, features, b, unmapped);
    CHECK(relative_error(ops::cast(unmapped, DType::Float32), ops::cast(from_copy, DType::Float32)) > 0.1);
  }
}

TEST_CASE("BF16 spmm sums in float and rounds once: within u·|ref| + (n+2)e·Σ|v||b| of float64, forward and backward") {
  uint64_t seed = 500;
  for (const Adjacency& a : test_graphs()) {
    CAPTURE(a.nnz());
    for (int64_t features : {1, 3, 8, 17, 64}) {
      CAPTURE(features);
      CHECK(bf16::spmm_error(a, 1, features, bf16::SpmmWeights::Pattern, seed += 3) <= 1.0);
      CHECK(bf16::spmm_error(a, 1, features, bf16::SpmmWeights::Float32, seed += 3) <= 1.0);
      CHECK(bf16::spmm_error(a, 8, features, bf16::SpmmWeights::Float32, seed += 3) <= 1.0);
      CHECK(bf16::spmm_error(a, 4, features, bf16::SpmmWeights::BFloat16, seed += 3) <= 1.0);
    }
  }
}

TEST_CASE("BF16 spmm: the float32 result of the same inputs rounded once, the GCN form, and a truncation caught") {
  const Adjacency a = rmat_graph(256, 2000, 41);
  const Tensor b = ops::cast(random_tensor({a.num_cols(), 24}, 42), DType::BFloat16);
  const Tensor values = random_tensor({a.nnz()}, 43);
  const Tensor c = ops::spmm(a, values, b);
  REQUIRE(c.dtype() == DType::BFloat16);
  // Same float sums in the same order: the CPU backend's bfloat16 output is
  // its float32 output rounded, bit for bit.
  CHECK(bf16::max_ulp_distance(c, ops::cast(ops::spmm(a, values, ops::cast(b, DType::Float32)), DType::BFloat16)) ==
        0);
  const Adjacency weighted = random_graph(300, 3000, 44, true);
  const Tensor wb = ops::cast(random_tensor({300, 16}, 45), DType::BFloat16);
  CHECK(bf16::max_ulp_distance(ops::spmm(weighted, wb), ops::spmm(weighted, weighted.values, wb)) == 0);
  // The distance sees a one-ulp change (what a truncating rounding makes of
  // half the elements), and NaN.
  std::vector<bfloat16> bits = c.to_vector<bfloat16>();
  bits[7].bits = static_cast<uint16_t>(bits[7].bits ^ 1u);
  const Tensor nudged = Tensor::from_vector(bits, c.shape());
  CHECK(bf16::max_ulp_distance(c, nudged) == 1);
  bits[8] = bfloat16(std::numeric_limits<float>::quiet_NaN());
  CHECK(bf16::max_ulp_distance(c, Tensor::from_vector(bits, c.shape())) > 1);
}

TEST_CASE("bf16::backend_gap admits another float summation order and fused multiply-adds, not a skipped entry") {
  // The GPU tier compares the CUDA backend with the CPU one through
  // backend_gap: here the other backend is simulated on the host (each row
  // summed backwards with fused multiply-adds, as a reordered, FMA-using
  // kernel would), on random weights of both signs (cancellation: the
  // results differ by many ulps where |c| ≪ Σ|v||b|).
  const Adjacency a = rmat_graph(4096, 300000, 51);  // hub rows of thousands of entries
  const int64_t features = 32;
  const Tensor b = ops::cast(random_tensor({a.num_cols(), features}, 52), DType::BFloat16);
  const Tensor values = random_tensor({a.nnz()}, 53);
  const Tensor expected = ops::spmm(a, values, b);
  const std::vector<int32_t> indptr = a.csr.indptr.to_vector<int32_t>();
  const std::vector<int32_t> columns = a.csr.indices.to_vector<int32_t>();
  const std::vector<float> v = values.to_vector<float>();
  const std::vector<bfloat16> x = b.to_vector<bfloat16>();
  const auto other_backend = [&](bool skip_one) {
    std::vector<bfloat16> c(static_cast<std::size_t>(a.num_rows() * features));
    for (int64_t row = 0; row < a.num_rows(); ++row) {
      for (int64_t f = 0; f < features; ++f) {
        float sum = 0.0f;
        for (int64_t e = indptr[static_cast<std::size_t>(row + 1)] - 1; e >= indptr[static_cast<std::size_t>(row)];
             --e) {
          if (skip_one && e == indptr[static_cast<std::size_t>(row)] + 1) continue;
          const auto at = static_cast<std::size_t>(int64_t{columns[static_cast<std::size_t>(e)]} * features + f);
          sum = std::fma(v[static_cast<std::size_t>(e)], x[at].to_float(), sum);
        }
        c[static_cast<std::size_t>(row * features + f)] = bfloat16(sum);
      }
    }
    return Tensor::from_vector(c, expected.shape());
  };
  const Tensor reordered = other_backend(false);
  CHECK(bf16::max_ulp_distance(reordered, expected) > 1);  // cancellation: the plain ulp test would fail
  CHECK(bf16::backend_gap(a, values, 1, features, b, reordered, expected) <= 1.0);
  CHECK(bf16::backend_gap(a, values, 1, features, b, other_backend(true), expected) > 1.0);
}

TEST_CASE("spmm refuses bad arguments with InvalidArgument") {
  const Adjacency a = random_graph(10, 30, 31);
  const Tensor b = random_tensor({10, 4}, 32);
  const Tensor values = random_tensor({a.nnz()}, 33);
  CHECK_THROWS_AS(ops::spmm(a, Tensor(), random_tensor({9, 4}, 34)), InvalidArgument);      // rows != n_cols
  CHECK_THROWS_AS(ops::spmm(a, Tensor(), random_tensor({10}, 34)), InvalidArgument);        // not 2-D
  CHECK_THROWS_AS(ops::spmm(a, Tensor(), Tensor::zeros({10, 4}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm(a, random_tensor({a.nnz() + 1}, 35), b), InvalidArgument);    // values too long
  CHECK_THROWS_AS(ops::spmm(a, Tensor::zeros({a.nnz()}, DType::Int64), b), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm(a, random_tensor({a.nnz(), 2}, 36), b), InvalidArgument);      // per-head needs [n,H,F]
  CHECK_THROWS_AS(ops::spmm(a, random_tensor({a.nnz(), 2}, 36), random_tensor({10, 3, 4}, 37)), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm(a, values, random_tensor({10, 1, 4}, 37)), InvalidArgument);   // [nnz] with 3-D b
  CHECK_THROWS_AS(ops::spmm(Adjacency{}, b), InvalidArgument);                              // no CSR
  CHECK_THROWS_AS(ops::spmm(a, Tensor()), InvalidArgument);                                 // undefined b
  // Device mismatches are tested in the GPU tier (tests/gpu/sparse_ops_test.cpp).
  Adjacency no_transpose = a;
  no_transpose.transpose = Csr{};
  Tensor trainable = random_tensor({10, 4}, 38).set_requires_grad(true);
  CHECK_THROWS_AS(ops::spmm(no_transpose, trainable), InvalidArgument);
}
