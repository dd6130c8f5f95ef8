// A GAT attention row whose scores overflow exp (1e30, 1e30 + 1e24, 100, and
// rows mixing them with -1e30) still gives a finite softmax and finite
// gradients: the row maximum is subtracted before exp.
#include <doctest/doctest.h>

#include <cmath>

#include "ops/edge_softmax.hpp"
#include "ops/nonfinite_check.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Score of edge e, head h: rows cycle through four overflow patterns.
float overflowing_score(int64_t row, int64_t e, int64_t h) {
  switch ((row + h) % 4) {
    case 0: return e % 2 == 0 ? 1e30f : 1e30f + 1e24f;
    case 1: return 100.0f + static_cast<float>(e % 5);  // exp(100) overflows float
    case 2: return e % 3 == 0 ? 1e30f : -1e30f;
    default: return 88.0f + static_cast<float>(e % 3);
  }
}

}  // namespace

TEST_CASE("edge_softmax stays finite when a row's scores overflow exp, forward and backward") {
  const Adjacency a = random_graph(200, 3000, 11);
  const EdgeCoordinates edges = edge_coordinates(a);
  for (int64_t heads : {1, 3}) {
    std::vector<float> values(static_cast<std::size_t>(a.nnz() * heads));
    for (int64_t e = 0; e < a.nnz(); ++e) {
      for (int64_t h = 0; h < heads; ++h) {
        values[static_cast<std::size_t>(e * heads + h)] = overflowing_score(edges.row[static_cast<std::size_t>(e)], e, h);
      }
    }
    Tensor scores = Tensor::from_vector(values, heads == 1 ? Shape{a.nnz()} : Shape{a.nnz(), heads});
    scores.set_requires_grad(true);
    const Tensor out = ops::edge_softmax(a, scores);
    CHECK(ops::find_nonfinite(out).all_finite());
    // Every row with entries sums to 1 per head.
    const std::vector<float> attention = out.to_vector<float>();
    std::vector<double> row_sums(static_cast<std::size_t>(a.num_rows() * heads), 0.0);
    for (int64_t e = 0; e < a.nnz(); ++e) {
      for (int64_t h = 0; h < heads; ++h) {
        row_sums[static_cast<std::size_t>(edges.row[static_cast<std::size_t>(e)] * heads + h)] +=
            static_cast<double>(attention[static_cast<std::size_t>(e * heads + h)]);
      }
    }
    for (int64_t e = 0; e < a.nnz(); ++e) {
      CHECK(row_sums[static_cast<std::size_t>(edges.row[static_cast<std::size_t>(e)] * heads)] ==
            doctest::Approx(1.0).epsilon(1e-5));
    }
    std::vector<float> upstream(values.size());
    for (std::size_t i = 0; i < upstream.size(); ++i) upstream[i] = static_cast<float>(i % 7) - 3.0f;
    out.backward(Tensor::from_vector(upstream, out.shape()));
    CHECK(ops::find_nonfinite(scores.grad()).all_finite());
  }
}
