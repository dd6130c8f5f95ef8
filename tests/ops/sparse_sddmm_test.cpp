#include <doctest/doctest.h>

#include "ops/sddmm.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// out[e, h] = Σ_f x[row, h, f] · y[col, h, f] in float64.
std::vector<double> reference_dot(const Adjacency& a, int64_t heads, int64_t features, const Tensor& x,
                                  const Tensor& y) {
  const EdgeCoordinates edges = edge_coordinates(a);
  const std::vector<double> xs = to_double(x);
  const std::vector<double> ys = to_double(y);
  std::vector<double> out;
  for (std::size_t e = 0; e < edges.row.size(); ++e) {
    for (int64_t h = 0; h < heads; ++h) {
      double dot = 0.0;
      for (int64_t f = 0; f < features; ++f) {
        dot += xs[static_cast<std::size_t>((edges.row[e] * heads + h) * features + f)] *
               ys[static_cast<std::size_t>((edges.column[e] * heads + h) * features + f)];
      }
      out.push_back(dot);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sddmm_dot matches a float64 reference, one head and eight") {
  uint64_t seed = 200;
  for (const Adjacency& a : {random_graph(1, 1, 1), random_graph(7, 3, 2), random_graph(60, 400, 3),
                             rmat_graph(256, 2000, 4), hub_graph(300, 250, 9)}) {
    for (int64_t features : {1, 3, 17, 64}) {
      const Tensor x = random_tensor({a.num_rows(), features}, ++seed);
      const Tensor y = random_tensor({a.num_cols(), features}, ++seed);
      const Tensor out = ops::sddmm_dot(a, x, y);
      CHECK(out.shape() == Shape{a.nnz()});
      CHECK(relative_error(out, reference_dot(a, 1, features, x, y)) < 1e-6);
      const Tensor hx = random_tensor({a.num_rows(), 8, features}, ++seed);
      const Tensor hy = random_tensor({a.num_cols(), 8, features}, ++seed);
      const Tensor hout = ops::sddmm_dot(a, hx, hy);
      CHECK(hout.shape() == Shape{a.nnz(), 8});
      CHECK(relative_error(hout, reference_dot(a, 8, features, hx, hy)) < 1e-6);
    }
  }
}

TEST_CASE("sddmm_add gives x[row] + y[col] per head") {
  const Adjacency a = rmat_graph(128, 900, 11);
  const EdgeCoordinates edges = edge_coordinates(a);
  for (int64_t heads : {1, 8}) {
    const Tensor x = random_tensor({128, heads}, 12);
    const Tensor y = random_tensor({128, heads}, 13);
    const std::vector<double> xs = to_double(x);
    const std::vector<double> ys = to_double(y);
    std::vector<double> expected;
    for (std::size_t e = 0; e < edges.row.size(); ++e) {
      for (int64_t h = 0; h < heads; ++h) {
        expected.push_back(xs[static_cast<std::size_t>(edges.row[e] * heads + h)] +
                           ys[static_cast<std::size_t>(edges.column[e] * heads + h)]);
      }
    }
    const Tensor out = ops::sddmm_add(a, x, y);
    CHECK(out.shape() == Shape{a.nnz(), heads});
    CHECK(relative_error(out, expected) < 1e-7);
  }
}

TEST_CASE("sddmm gradients match finite differences") {
  const Adjacency a = random_graph(6, 18, 41);
  for (int64_t heads : {1, 8}) {
    CAPTURE(heads);
    Tensor x = random_tensor({6, heads, 3}, 42).set_requires_grad(true);
    Tensor y = random_tensor({6, heads, 3}, 43).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::sddmm_dot(a, in[0], in[1]); }, {x, y}) <
          1e-2);
    Tensor u = random_tensor({6, heads}, 44).set_requires_grad(true);
    Tensor v = random_tensor({6, heads}, 45).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::sddmm_add(a, in[0], in[1]); }, {u, v}) <
          1e-2);
  }
  Tensor x = random_tensor({6, 5}, 46).set_requires_grad(true);
  Tensor y = random_tensor({6, 5}, 47).set_requires_grad(true);
  CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::sddmm_dot(a, in[0], in[1]); }, {x, y}) < 1e-2);
}

TEST_CASE("sddmm refuses bad arguments with InvalidArgument") {
  const Adjacency a = random_graph(10, 30, 51);
  const Tensor x = random_tensor({10, 4}, 52);
  CHECK_THROWS_AS(ops::sddmm_dot(a, x, random_tensor({10, 5}, 53)), InvalidArgument);      // F differs
  CHECK_THROWS_AS(ops::sddmm_dot(a, x, random_tensor({9, 4}, 53)), InvalidArgument);       // rows
  CHECK_THROWS_AS(ops::sddmm_dot(a, x, random_tensor({10, 1, 4}, 53)), InvalidArgument);   // rank differs
  CHECK_THROWS_AS(ops::sddmm_dot(a, random_tensor({10}, 54), random_tensor({10}, 54)), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_dot(a, Tensor::zeros({10, 4}, DType::Int32), x), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_add(a, x, random_tensor({10, 3}, 55)), InvalidArgument);      // H differs
  CHECK_THROWS_AS(ops::sddmm_add(a, random_tensor({10, 2, 2}, 56), random_tensor({10, 2, 2}, 56)), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_add(a, Tensor(), x), InvalidArgument);
}
