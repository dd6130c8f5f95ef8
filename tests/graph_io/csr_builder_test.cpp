#include <doctest/doctest.h>

#include "core/autograd.hpp"
#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "ops/sddmm.hpp"
#include "ops/spmm.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/reference_prepare.hpp"
#include "tests/support/spmm_outputs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("Thrust host builder equals the sequential reference exactly, for every option combination") {
  for (const auto& graph : sgnn::testing::test_graphs(/*large=*/false)) {
    for (const PrepareOptions& options : sgnn::testing::all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(sgnn::testing::describe(options));
      const Adjacency built = prepare_adjacency(graph.edges, options);
      built.validate();
      sgnn::testing::check_same_adjacency(built, reference::reference_prepare_adjacency(graph.edges, options));
    }
  }
}

TEST_CASE("Thrust host builder on a hub row of 100000 edges equals the reference") {
  const EdgeList edges = sgnn::testing::random_edges(30001, 200000, 22, true, 100000);
  PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = SelfLoops::Add;
  options.normalization = Normalization::Symmetric;
  const Adjacency built = prepare_adjacency(edges, options);
  sgnn::testing::check_same_adjacency(built, reference::reference_prepare_adjacency(edges, options));
  CHECK(built.csr.row_order.to_vector<int32_t>()[0] == 0);  // the hub row comes first
}

TEST_CASE("prepare names the first bad edge found by the parallel check") {
  const EdgeList edges = sgnn::testing::edges_from(3, {0, 1, 2, 1}, {1, 3, 0, 7});
  CHECK_THROWS_WITH_AS(prepare_adjacency(edges, {}), doctest::Contains("edge 1 (1 -> 3)"), InvalidArgument);
  const EdgeList infinite = sgnn::testing::edges_from(3, {0, 1}, {1, 2}, {1.0f, INFINITY});
  CHECK_THROWS_WITH_AS(prepare_adjacency(infinite, {}), doctest::Contains("not finite"), InvalidArgument);
  EdgeList mismatched = sgnn::testing::edges_from(3, {0, 1}, {1, 2});
  mismatched.target = Tensor::from_vector(std::vector<int32_t>{1}, {1});
  CHECK_THROWS_AS(prepare_adjacency(mismatched, {}), InvalidArgument);
}

TEST_CASE("a symmetric pattern's transpose shares A's arrays, and its values where they are symmetric") {
  const EdgeList edges = sgnn::testing::random_edges(2000, 12000, 31, false);
  PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = SelfLoops::Add;
  for (const Normalization normalization : {Normalization::Symmetric, Normalization::Row, Normalization::None}) {
    options.normalization = normalization;
    CAPTURE(sgnn::testing::describe(options));
    const Adjacency built = prepare_adjacency(edges, options);
    built.validate();
    sgnn::testing::check_same_adjacency(built, reference::reference_prepare_adjacency(edges, options));
    CHECK(built.transpose.indices.shares_storage_with(built.csr.indices));
    CHECK(built.transpose.indptr.shares_storage_with(built.csr.indptr));
    // D^-1/2 A D^-1/2 of a symmetric pattern is symmetric; D^-1 A is not.
    if (normalization != Normalization::None) {
      CHECK(built.transpose_values.shares_storage_with(built.values) == (normalization == Normalization::Symmetric));
    }
    // The cached-pattern path shares the same way, and a move keeps the sharing.
    const Adjacency from_pattern = adjacency_from_pattern(built.csr, Tensor(), options);
    sgnn::testing::check_same_adjacency(from_pattern, built);
    CHECK(from_pattern.transpose.indices.shares_storage_with(from_pattern.csr.indices));
    const Adjacency moved = from_pattern.to(Device::cpu());
    CHECK(moved.transpose.indices.shares_storage_with(moved.csr.indices));
  }
  // A directed graph keeps its own transpose.
  options.symmetrize = false;
  const Adjacency directed = prepare_adjacency(edges, options);
  sgnn::testing::check_same_adjacency(directed, reference::reference_prepare_adjacency(edges, options));
  CHECK_FALSE(directed.transpose.indices.shares_storage_with(directed.csr.indices));
}

TEST_CASE("without the edge map (GCN's options) A and Aᵀ are complete, GCN's backward runs, SDDMM's is refused") {
  const EdgeList edges = sgnn::testing::random_edges(300, 2000, 41, false);
  const PrepareOptions gcn = gcn_graph_options().prepare;
  CHECK_FALSE(gcn.edge_map);
  PrepareOptions with_map = gcn;
  with_map.edge_map = true;
  const Adjacency lean = prepare_adjacency(edges, gcn);
  const Adjacency full = prepare_adjacency(edges, with_map);
  CHECK_FALSE(lean.transpose_to_csr.defined());
  REQUIRE(full.transpose_to_csr.defined());
  lean.validate();  // derives the map itself to check Aᵀ and its values
  Adjacency wrong = lean;
  wrong.transpose_values = Tensor::from_vector(std::vector<float>(static_cast<std::size_t>(lean.nnz()), 0.5f), {lean.nnz()});
  CHECK_THROWS_AS(wrong.validate(), InvalidArgument);
  // The cached-pattern path leaves it out too, on a symmetric and a directed pattern.
  for (const bool symmetrize : {true, false}) {
    PrepareOptions options = gcn;
    options.symmetrize = symmetrize;
    const Adjacency built = prepare_adjacency(edges, options);
    const Adjacency from_pattern = adjacency_from_pattern(built.csr, Tensor(), options);
    CHECK_FALSE(from_pattern.transpose_to_csr.defined());
    sgnn::testing::check_same_adjacency(from_pattern, built);
  }

  // GCN's aggregation differentiates through Aᵀ and its stored values: the same gradient either way.
  CHECK(sgnn::testing::spmm_outputs(lean, 3, DType::Float32, 42) == sgnn::testing::spmm_outputs(full, 3, DType::Float32, 42));
  // Per-edge tensors cannot be moved into Aᵀ's order: a clear error at the forward, not a crash in backward.
  Tensor x = Tensor::full({lean.num_rows(), 4}, 1.0);
  x.set_requires_grad(true);
  CHECK_THROWS_WITH_AS(ops::sddmm_dot(lean, x, x), doctest::Contains("edge_map"), InvalidArgument);
  Tensor weights = Tensor::full({lean.nnz()}, 1.0);
  weights.set_requires_grad(true);
  CHECK_THROWS_WITH_AS(ops::spmm(lean, weights, x), doctest::Contains("transpose_to_csr"), InvalidArgument);
  CHECK_NOTHROW(ops::sddmm_dot(full, x, x));
}

TEST_CASE("the symmetric scale stands for GCN's weights bitwise: stored_weights, SpMM forward and backward, HRPB") {
  for (const bool symmetrize : {true, false}) {
    CAPTURE(symmetrize);
    const EdgeList edges = sgnn::testing::random_edges(400, 3000, 43, false);
    PrepareOptions stored = gcn_graph_options().prepare;
    stored.symmetrize = symmetrize;
    PrepareOptions scaled = stored;
    scaled.symmetric_scale = true;
    const Adjacency explicit_weights = prepare_adjacency(edges, stored);
    const Adjacency scale = prepare_adjacency(edges, scaled);
    REQUIRE(explicit_weights.values.defined());
    CHECK_FALSE(scale.values.defined());
    REQUIRE(scale.symmetric_scale.shape() == Shape{scale.num_rows()});
    scale.validate();
    CHECK(stored_weights(scale).to_vector<float>() == explicit_weights.values.to_vector<float>());
    CHECK(stored_weights(scale, /*transpose=*/true).to_vector<float>() ==
          explicit_weights.transpose_values.to_vector<float>());
    // A weighted graph keeps its values: the scale stands only for unweighted D^-1/2 A D^-1/2.
    const EdgeList weighted = sgnn::testing::random_edges(400, 3000, 44, true);
    CHECK(prepare_adjacency(weighted, scaled).values.defined());

    for (const DType dtype : {DType::Float32, DType::BFloat16}) {
      CAPTURE(dtype_name(dtype));
      const auto expected = sgnn::testing::spmm_outputs(explicit_weights, 5, dtype, 45);
      const auto got = sgnn::testing::spmm_outputs(scale, 5, dtype, 45);
      CHECK(got.first == expected.first);
      CHECK(got.second == expected.second);
    }
  }
}
