#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "graph_io/prepare.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

namespace {

EdgeList make_edges(int64_t n, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                    const std::vector<float>& weight = {}) {
  EdgeList edges;
  edges.num_nodes = n;
  edges.source = Tensor::from_vector(source, {static_cast<int64_t>(source.size())});
  edges.target = Tensor::from_vector(target, {static_cast<int64_t>(target.size())});
  if (!weight.empty()) edges.weight = Tensor::from_vector(weight, {static_cast<int64_t>(weight.size())});
  return edges;
}

}  // namespace

TEST_CASE("prepare builds A[target, source] with its transpose and edge map") {
  // 0 -> 1, 0 -> 2, 2 -> 1
  const Adjacency a = prepare_adjacency(make_edges(3, {0, 0, 2}, {1, 2, 1}), {});
  a.validate();
  CHECK(a.csr.indptr.to_vector<int32_t>() == std::vector<int32_t>{0, 0, 2, 3});
  CHECK(a.csr.indices.to_vector<int32_t>() == std::vector<int32_t>{0, 2, 0});
  CHECK(a.transpose.indptr.to_vector<int32_t>() == std::vector<int32_t>{0, 2, 2, 3});
  CHECK(a.transpose.indices.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 1});
  CHECK(a.transpose_to_csr.to_vector<int32_t>() == std::vector<int32_t>{0, 2, 1});
  CHECK(a.csr.row_order.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 0});
  CHECK_FALSE(a.has_values());
}

TEST_CASE("prepare merges or drops duplicates and handles self loops") {
  const EdgeList edges = make_edges(2, {0, 0, 1, 1}, {1, 1, 1, 0}, {1.0f, 2.0f, 5.0f, 4.0f});
  const Adjacency merged = prepare_adjacency(edges, {});
  CHECK(merged.csr.indices.to_vector<int32_t>() == std::vector<int32_t>{1, 0, 1});
  CHECK(merged.values.to_vector<float>() == std::vector<float>{4, 3, 5});
  PrepareOptions drop;
  drop.duplicates = Duplicates::Drop;
  CHECK(prepare_adjacency(edges, drop).values.to_vector<float>() == std::vector<float>{4, 1, 5});
  PrepareOptions no_loops;
  no_loops.self_loops = SelfLoops::Remove;
  CHECK(prepare_adjacency(edges, no_loops).csr.indices.to_vector<int32_t>() == std::vector<int32_t>{1, 0});
  PrepareOptions loops;
  loops.self_loops = SelfLoops::Add;
  const Adjacency with_loops = prepare_adjacency(edges, loops);
  CHECK(with_loops.csr.indices.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 0, 1});
  CHECK(with_loops.values.to_vector<float>() == std::vector<float>{1, 4, 3, 5});  // existing loop weight kept
}

TEST_CASE("GCN normalisation gives D^-1/2 (A + I) D^-1/2 on a path") {
  PrepareOptions gcn;
  gcn.symmetrize = true;
  gcn.self_loops = SelfLoops::Add;
  gcn.normalization = Normalization::Symmetric;
  const Adjacency a = prepare_adjacency(make_edges(3, {0, 1}, {1, 2}), gcn);
  a.validate();
  // degrees with self loops: 2, 3, 2
  const std::vector<float> v = a.values.to_vector<float>();
  const std::vector<float> expected = {1.0f / 2, 1.0f / std::sqrt(6.0f), 1.0f / std::sqrt(6.0f), 1.0f / 3,
                                       1.0f / std::sqrt(6.0f), 1.0f / std::sqrt(6.0f), 1.0f / 2};
  REQUIRE(v.size() == expected.size());
  for (std::size_t k = 0; k < v.size(); ++k) CHECK(v[k] == doctest::Approx(expected[k]));
}

TEST_CASE("prepare passes validation on random multigraphs") {
  std::mt19937 engine(3);
  for (int trial = 0; trial < 5; ++trial) {
    const int64_t n = 1 + trial * 37;
    std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(n - 1));
    std::vector<int32_t> s(static_cast<std::size_t>(n * 3)), t(s.size());
    for (std::size_t k = 0; k < s.size(); ++k) {
      s[k] = node(engine);
      t[k] = node(engine);
    }
    PrepareOptions options;
    options.symmetrize = trial % 2 == 0;
    options.self_loops = trial % 3 == 0 ? SelfLoops::Add : SelfLoops::Keep;
    options.normalization = Normalization::Row;
    prepare_adjacency(make_edges(n, s, t), options).validate();
  }
}

TEST_CASE("prepare refuses ids out of range and mismatched arrays") {
  CHECK_THROWS_WITH_AS(prepare_adjacency(make_edges(2, {0, 2}, {1, 1}), {}), doctest::Contains("outside [0, 2)"),
                       InvalidArgument);
  CHECK_THROWS_AS(prepare_adjacency(make_edges(2, {0, -1}, {1, 1}), {}), InvalidArgument);
  CHECK_THROWS_AS(prepare_adjacency(make_edges(2, {0}, {1}, {1.0f, 2.0f}), {}), InvalidArgument);
  CHECK_THROWS_AS(prepare_adjacency(make_edges(2, {0}, {1}, {NAN}), {}), InvalidArgument);
}
