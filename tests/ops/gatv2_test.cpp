#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/gatv2_attention.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "tests/support/message_references.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// s[e, h] = Σ_f a[h, f] · LeakyReLU(x[row(e), h, f] + y[col(e), h, f]) in float64, entry by entry.
std::vector<double> reference_scores(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const Tensor& a,
                                     double slope) {
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const std::vector<double> xs = to_double(x), ys = to_double(y), as = to_double(a);
  const int64_t heads = x.size(1), features = x.size(2);
  std::vector<double> scores;
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    for (int64_t h = 0; h < heads; ++h) {
      double sum = 0.0;
      for (int64_t f = 0; f < features; ++f) {
        const double z = xs[static_cast<std::size_t>((edges.row[k] * heads + h) * features + f)] +
                         ys[static_cast<std::size_t>((edges.column[k] * heads + h) * features + f)];
        sum += as[static_cast<std::size_t>(h * features + f)] * (z > 0 ? z : slope * z);
      }
      scores.push_back(sum);
    }
  }
  return scores;
}

}  // namespace

TEST_CASE("gatv2_scores matches a float64 reference; gatv2_attention's rows sum to one") {
  uint64_t seed = 10;
  for (const Adjacency& a : {random_graph(1, 1, 1), random_graph(9, 0, 2), random_graph(40, 200, 3),
                             rmat_graph(300, 3000, 4), hub_graph(3000, 2500, 17)}) {
    for (const auto& [heads, features] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 16}, {4, 8}, {3, 5}}) {
      const Tensor x = random_tensor({a.num_rows(), heads, features}, ++seed);
      const Tensor y = random_tensor({a.num_cols(), heads, features}, ++seed);
      const Tensor attention = random_tensor({heads, features}, ++seed);
      CAPTURE(a.nnz());
      CAPTURE(heads);
      CAPTURE(features);
      CHECK(relative_error(ops::gatv2_scores(a, x, y, attention, 0.2f), reference_scores(a, x, y, attention, 0.2)) <
            1e-6);
      const std::vector<float> alpha = ops::gatv2_attention(a, x, y, attention, 0.2f).to_vector<float>();
      const EdgeCoordinates edges = edge_coordinates(a);
      std::vector<double> sums(static_cast<std::size_t>(a.num_rows() * heads), 0.0);
      for (std::size_t k = 0; k < edges.row.size(); ++k) {
        for (int64_t h = 0; h < heads; ++h) {
          sums[static_cast<std::size_t>(edges.row[k] * heads + h)] += static_cast<double>(alpha[k * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)]);
        }
      }
      for (std::size_t r = 0; r < sums.size(); ++r) {
        if (sums[r] != 0.0) CHECK(sums[r] == doctest::Approx(1.0).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("gatv2 gradients in both node operands and the attention vector match finite differences") {
  for (const Adjacency& a : {random_graph(7, 25, 31), adjacency_from_entries(4, {0, 0, 1, 3, 3}, {1, 2, 0, 3, 0})}) {
    Tensor x = random_tensor({a.num_rows(), 2, 3}, 32).set_requires_grad(true);
    Tensor y = random_tensor({a.num_cols(), 2, 3}, 33).set_requires_grad(true);
    Tensor attention = random_tensor({2, 3}, 34).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::gatv2_scores(a, in[0], in[1], in[2], 0.2f); },
                         {x, y, attention}) < 1e-2);
    CHECK(gradient_error(
              [&](const std::vector<Tensor>& in) { return ops::gatv2_attention(a, in[0], in[1], in[2], 0.2f); },
              {x, y, attention}) < 1e-2);
  }
}

TEST_CASE("gatv2_scores reads bfloat16 operands in float") {
  const Adjacency a = rmat_graph(300, 3000, 41);
  const Tensor x = ops::cast(random_tensor({a.num_rows(), 4, 16}, 42), DType::BFloat16);
  const Tensor y = ops::cast(random_tensor({a.num_cols(), 4, 16}, 43), DType::BFloat16);
  const Tensor attention = random_tensor({4, 16}, 44);
  const Tensor scores = ops::gatv2_scores(a, x, y, attention, 0.2f);
  CHECK(scores.dtype() == DType::Float32);
  // The bfloat16 inputs are exact in float: only the float sums' rounding differs from float64.
  CHECK(relative_error(scores, reference_scores(a, ops::cast(x, DType::Float32), ops::cast(y, DType::Float32), attention, 0.2)) < 1e-5);
}

TEST_CASE("gatv2_scores names the argument and the shapes of bad input") {
  const Adjacency a = random_graph(6, 12, 61);
  const Tensor x = random_tensor({6, 2, 4}, 62);
  CHECK(invalid_argument_message([&] { ops::gatv2_scores(a, x, random_tensor({6, 2, 3}, 1), random_tensor({2, 4}, 2), 0.2f); })
            .find("[6, 2, 4] and [6, 2, 3]") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gatv2_scores(a, x, x, random_tensor({2, 3}, 2), 0.2f); }).find("a must be [H, F] = [2, 4], got [2, 3]") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gatv2_scores(a, x, x, random_tensor({2, 4}, 2), -1.0f); }).find("negative_slope") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gatv2_scores(a, x, ops::cast(x, DType::BFloat16), random_tensor({2, 4}, 2), 0.2f); }).find("one dtype") != std::string::npos);
}

namespace {

// spmm(A, dropout(gatv2_attention(...)), x_source): what gatv2_aggregate stands for.
Tensor composed_aggregate(const Adjacency& a, const Tensor& x, const Tensor& y, const Tensor& attention, float p,
                          bool training, Generator& generator) {
  return ops::spmm(a, ops::dropout(ops::gatv2_attention(a, x, y, attention, 0.2f), p, training, generator), y);
}

}  // namespace

TEST_CASE("gatv2_aggregate equals the composition it fuses on the CPU: values, the dropout draw and gradients") {
  uint64_t seed = 200;
  for (const Adjacency& a : {random_graph(1, 1, 1), random_graph(9, 0, 2), random_graph(40, 200, 3),
                             rmat_graph(300, 3000, 4), hub_graph(3000, 2500, 17)}) {
    for (const auto& [heads, features] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 16}, {8, 8}, {3, 5}}) {
      for (const auto& [p, training] : std::vector<std::pair<float, bool>>{{0.0f, true}, {0.6f, true}, {0.6f, false}}) {
        const Tensor x = random_tensor({a.num_rows(), heads, features}, ++seed);
        const Tensor y = random_tensor({a.num_cols(), heads, features}, ++seed);
        const Tensor attention = random_tensor({heads, features}, ++seed);
        const Tensor weights = random_tensor({a.num_rows(), heads, features}, ++seed);
        std::vector<Tensor> fused_inputs = {x.clone().set_requires_grad(true), y.clone().set_requires_grad(true),
                                            attention.clone().set_requires_grad(true)};
        std::vector<Tensor> composed_inputs = {x.clone().set_requires_grad(true), y.clone().set_requires_grad(true),
                                               attention.clone().set_requires_grad(true)};
        Generator fused_generator(7), composed_generator(7);
        const Tensor fused = ops::gatv2_aggregate(a, fused_inputs[0], fused_inputs[1], fused_inputs[2], 0.2f, p,
                                                  training, fused_generator);
        const Tensor composed = composed_aggregate(a, composed_inputs[0], composed_inputs[1], composed_inputs[2], p,
                                                   training, composed_generator);
        CAPTURE(a.nnz());
        CAPTURE(heads);
        CAPTURE(features);
        CAPTURE(p);
        CAPTURE(training);
        CHECK(fused.shape() == composed.shape());
        CHECK(relative_error(fused, composed) < 1e-5);
        CHECK(fused_generator.offset() == composed_generator.offset());  // one draw, the same one
        ops::sum(ops::mul(fused, weights)).backward();
        ops::sum(ops::mul(composed, weights)).backward();
        for (std::size_t i = 0; i < 3; ++i) {
          CAPTURE(i);
          CHECK(relative_error(fused_inputs[i].grad(), composed_inputs[i].grad()) < 1e-4);
        }
      }
    }
  }
}

TEST_CASE("gatv2_aggregate in bfloat16 is the float op's result rounded; bad dropout is refused") {
  const Adjacency a = rmat_graph(300, 3000, 51);
  const Tensor x = ops::cast(random_tensor({a.num_rows(), 4, 8}, 52), DType::BFloat16);
  const Tensor y = ops::cast(random_tensor({a.num_cols(), 4, 8}, 53), DType::BFloat16);
  const Tensor attention = random_tensor({4, 8}, 54);
  Generator first(3), second(3);
  const Tensor low = ops::gatv2_aggregate(a, x, y, attention, 0.2f, 0.5f, true, first);
  const Tensor high = ops::gatv2_aggregate(a, ops::cast(x, DType::Float32), ops::cast(y, DType::Float32), attention,
                                           0.2f, 0.5f, true, second);
  CHECK(low.dtype() == DType::BFloat16);
  CHECK(relative_error(ops::cast(low, DType::Float32), high) < 1e-2);  // bfloat16's 8 bits, rounded once
  CHECK_THROWS_AS(ops::gatv2_aggregate(a, x, y, attention, 0.2f, 1.0f, true, first), InvalidArgument);
  CHECK_THROWS_AS(ops::gatv2_aggregate(a, x, y, attention, 0.2f, -0.1f, true, first), InvalidArgument);
  CHECK_THROWS_AS(ops::gatv2_aggregate(a, x, ops::cast(y, DType::Float32), attention, 0.2f, 0.5f, true, first),
                  InvalidArgument);
  // Gradients need Aᵀ: refused by the op itself before any path runs (on CUDA a path may be timed first).
  Adjacency no_transpose = a;
  no_transpose.transpose = Csr{};
  const Tensor trainable = x.clone().set_requires_grad(true);
  CHECK(invalid_argument_message([&] {
          (void)ops::gatv2_aggregate(no_transpose, trainable, y, attention, 0.2f, 0.5f, true, first);
        }).starts_with("gatv2_aggregate: backward needs adjacency.transpose"));
  CHECK(ops::gatv2_aggregate(no_transpose, x, y, attention, 0.2f, 0.5f, true, first).defined());
}
