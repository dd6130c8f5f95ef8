#include <doctest/doctest.h>

#include <map>

#include "graph_io/generators/bipartite.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "ops/spmm.hpp"
#include "tests/graph_io/generator_checks.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

namespace {

BipartiteOptions small_bipartite() {
  BipartiteOptions options;
  options.num_sources = 3000;
  options.num_targets = 800;
  options.num_edges = 24000;
  options.exponent = 2.5;
  options.seed = 5;
  return options;
}

PrepareOptions row_normalised() {
  PrepareOptions options;
  options.normalization = Normalization::Row;
  return options;
}

}  // namespace

TEST_CASE("bipartite graph: every edge source -> target, heavy-tailed targets, uniform sources") {
  const BipartiteOptions options = small_bipartite();
  const EdgeList edges = generate_bipartite(options);
  edges.validate();
  CHECK(edges.num_nodes == 3800);
  CHECK(edges.num_edges() == 24000);
  const std::vector<int32_t> s = edges.source.to_vector<int32_t>(), t = edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < s.size(); ++k) {
    REQUIRE(s[k] < 3000);
    REQUIRE(t[k] >= 3000);
  }
  std::vector<int64_t> target_degree = sgnn::testing::end_counts(edges, false, true);
  target_degree.erase(target_degree.begin(), target_degree.begin() + 3000);
  CHECK(sgnn::testing::fitted_degree_exponent(target_degree, 5, 300) == doctest::Approx(2.5).epsilon(0.15 / 2.5));
  const std::vector<int64_t> source_degree = sgnn::testing::end_counts(edges, true, false);
  CHECK(*std::max_element(source_degree.begin(), source_degree.begin() + 3000) < 30);  // Poisson(8)
  sgnn::testing::check_thread_independent([&] { return generate_bipartite(options); });
}

TEST_CASE("bipartite adjacency: the targets x sources block, transposed consistently, usable by SpMM") {
  const BipartiteOptions options = small_bipartite();
  const EdgeList edges = generate_bipartite(options);
  const Adjacency a = prepare_bipartite_adjacency(edges, options.num_sources, row_normalised());
  a.validate();
  CHECK(a.num_rows() == 800);
  CHECK(a.num_cols() == 3000);
  CHECK(a.transpose.num_rows == 3000);
  // The entries are the distinct edges, at (target − sources, source).
  std::map<std::pair<int64_t, int64_t>, int> expected;
  const std::vector<int32_t> s = edges.source.to_vector<int32_t>(), t = edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < s.size(); ++k) expected[{t[k] - 3000, s[k]}] = 1;
  CHECK(a.nnz() == static_cast<int64_t>(expected.size()));
  const std::vector<int32_t> indptr = a.csr.indptr.to_vector<int32_t>(), indices = a.csr.indices.to_vector<int32_t>();
  const std::vector<float> values = a.values.to_vector<float>();
  int64_t found = 0;
  for (int64_t r = 0; r < 800; ++r) {
    double row_sum = 0;
    for (int32_t k = indptr[static_cast<std::size_t>(r)]; k < indptr[static_cast<std::size_t>(r) + 1]; ++k) {
      found += expected.count({r, indices[static_cast<std::size_t>(k)]}) == 1 ? 1 : 0;
      row_sum += static_cast<double>(values[static_cast<std::size_t>(k)]);
    }
    if (indptr[static_cast<std::size_t>(r) + 1] > indptr[static_cast<std::size_t>(r)])
      CHECK(row_sum == doctest::Approx(1.0));
  }
  CHECK(found == a.nnz());
  // C = A · B with B [sources, 2]: row r averages B over the sources of target r.
  std::vector<float> b(3000 * 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 7) - 3.0f;
  const std::vector<float> c = ops::spmm(a, Tensor::from_vector(b, {3000, 2})).to_vector<float>();
  REQUIRE(c.size() == 800 * 2);
  for (int64_t r = 0; r < 800; r += 97) {
    double sum = 0;
    for (int32_t k = indptr[static_cast<std::size_t>(r)]; k < indptr[static_cast<std::size_t>(r) + 1]; ++k) {
      const std::size_t column = static_cast<std::size_t>(indices[static_cast<std::size_t>(k)]);
      sum += static_cast<double>(values[static_cast<std::size_t>(k)]) * static_cast<double>(b[column * 2 + 1]);
    }
    CHECK(c[static_cast<std::size_t>(r) * 2 + 1] == doctest::Approx(sum).epsilon(1e-5));
  }
}

TEST_CASE("bipartite adjacency: its HRPB holds the same rectangular matrix") {
  const BipartiteOptions options = small_bipartite();
  const Adjacency a = prepare_bipartite_adjacency(generate_bipartite(options), options.num_sources, row_normalised());
  const Hrpb h = build_hrpb(a.csr, a.values, HrpbOptions{});
  CHECK(h.num_rows == 800);
  CHECK(h.num_cols == 3000);
  const HrpbAsCsr back = hrpb_to_csr(h);
  std::vector<int64_t> indptr;
  for (const int32_t offset : a.csr.indptr.to_vector<int32_t>()) indptr.push_back(offset);
  CHECK(back.indptr.to_vector<int64_t>() == indptr);
  CHECK(back.indices.to_vector<int32_t>() == a.csr.indices.to_vector<int32_t>());
  CHECK(back.values.to_vector<float>() == a.values.to_vector<float>());
}

TEST_CASE("bipartite graph and adjacency refuse bad input") {
  BipartiteOptions bad = small_bipartite();
  bad.num_edges = 3000 * 800 + 1;
  CHECK_THROWS_AS(generate_bipartite(bad), InvalidArgument);
  bad = small_bipartite();
  bad.num_targets = 0;
  CHECK_THROWS_AS(generate_bipartite(bad), InvalidArgument);
  bad = small_bipartite();
  bad.exponent = 1.9;
  CHECK_THROWS_AS(generate_bipartite(bad), InvalidArgument);

  const EdgeList edges = generate_bipartite(small_bipartite());
  PrepareOptions symmetric = row_normalised();
  symmetric.symmetrize = true;
  CHECK_THROWS_WITH_AS(prepare_bipartite_adjacency(edges, 3000, symmetric), doctest::Contains("rectangular"),
                       InvalidArgument);
  PrepareOptions loops;
  loops.self_loops = SelfLoops::Add;
  CHECK_THROWS_AS(prepare_bipartite_adjacency(edges, 3000, loops), InvalidArgument);
  CHECK_THROWS_AS(prepare_bipartite_adjacency(edges, 3800, row_normalised()), InvalidArgument);
  // An edge target -> source or source -> source is named.
  EdgeList wrong;
  wrong.num_nodes = 8;
  wrong.source = Tensor::from_vector(std::vector<int32_t>{0, 1, 6, 2}, {4});
  wrong.target = Tensor::from_vector(std::vector<int32_t>{5, 7, 1, 3}, {4});
  CHECK_THROWS_WITH_AS(prepare_bipartite_adjacency(wrong, 4, row_normalised()), doctest::Contains("edge 2 goes 6 -> 1"),
                       InvalidArgument);
  wrong.source = Tensor::from_vector(std::vector<int32_t>{0, 1, 2}, {3});
  wrong.target = Tensor::from_vector(std::vector<int32_t>{5, 7, 3}, {3});
  CHECK_THROWS_WITH_AS(prepare_bipartite_adjacency(wrong, 4, row_normalised()), doctest::Contains("edge 2 goes 2 -> 3"),
                       InvalidArgument);
}
