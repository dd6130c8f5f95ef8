#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "graph_io/adjacency_variants.hpp"
#include "graph_io/generators/generators.hpp"
#include "ops/spmm.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using graph_io::AdjacencyForm;
using graph_io::Normalization;
using graph_io::SelfLoops;

namespace {

graph_io::EdgeList some_edges() {
  graph_io::RmatOptions options;
  options.num_nodes = 300;
  options.num_edges = 2500;
  options.seed = 5;
  return graph_io::generate_rmat(options);
}

graph_io::PrepareOptions options_of(SelfLoops loops, Normalization normalization) {
  graph_io::PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = loops;
  options.normalization = normalization;
  options.symmetric_scale = true;
  return options;
}

// What prepare_adjacency makes directly in that form: the reference a derived form must equal.
void check_same_aggregation(const Adjacency& derived, const Adjacency& direct) {
  REQUIRE(derived.nnz() == direct.nnz());
  CHECK(derived.csr.indptr.to_vector<int32_t>() == direct.csr.indptr.to_vector<int32_t>());
  CHECK(derived.csr.indices.to_vector<int32_t>() == direct.csr.indices.to_vector<int32_t>());
  const Tensor x = random_tensor({direct.num_cols(), 6}, 11);
  CHECK(relative_error(ops::spmm(derived, x), ops::spmm(direct, x)) == 0.0);
}

}  // namespace

TEST_CASE("adjacency variants return the prepared adjacency for its own form and derive nothing") {
  const graph_io::PrepareOptions gcn = options_of(SelfLoops::Add, Normalization::Symmetric);
  graph_io::AdjacencyVariants variants(graph_io::prepare_adjacency(some_edges(), gcn), gcn);
  CHECK(&variants.get({Normalization::Symmetric, SelfLoops::Add}) == &variants.prepared());
  CHECK(&variants.get({Normalization::Symmetric, SelfLoops::Keep}) == &variants.prepared());
  CHECK(variants.derived_count() == 0);
}

TEST_CASE("adjacency variants derive each normalisation and self-loop form as prepare would, once") {
  const graph_io::EdgeList edges = some_edges();
  const graph_io::PrepareOptions gat = options_of(SelfLoops::Add, Normalization::None);
  graph_io::AdjacencyVariants variants(graph_io::prepare_adjacency(edges, gat), gat);
  for (const SelfLoops loops : {SelfLoops::Add, SelfLoops::Remove}) {
    for (const Normalization normalization : {Normalization::None, Normalization::Symmetric, Normalization::Row}) {
      CAPTURE(static_cast<int>(loops));
      CAPTURE(static_cast<int>(normalization));
      const Adjacency& derived = variants.get({normalization, loops});
      check_same_aggregation(derived, graph_io::prepare_adjacency(edges, options_of(loops, normalization)));
      CHECK(&variants.get({normalization, loops}) == &derived);  // cached
    }
  }
  CHECK(variants.derived_count() == 5);
  // The prepared self loops keep the prepared CSR arrays: no second pattern.
  const Adjacency& symmetric = variants.get({Normalization::Symmetric, SelfLoops::Add});
  CHECK(symmetric.csr.indices.shares_storage_with(variants.prepared().csr.indices));
  CHECK(symmetric.symmetric_scale.defined());
  CHECK_FALSE(symmetric.values.defined());
}

TEST_CASE("adjacency variants add a self loop to every node of a pattern prepared without them") {
  const graph_io::EdgeList edges = some_edges();
  const graph_io::PrepareOptions sage = options_of(SelfLoops::Remove, Normalization::None);
  graph_io::AdjacencyVariants variants(graph_io::prepare_adjacency(edges, sage), sage);
  for (const Normalization normalization : {Normalization::None, Normalization::Symmetric}) {
    check_same_aggregation(variants.get({normalization, SelfLoops::Add}),
                           graph_io::prepare_adjacency(edges, options_of(SelfLoops::Add, normalization)));
  }
}

TEST_CASE("adjacency variants refuse to renormalise weights they no longer have") {
  graph_io::EdgeList edges = some_edges();
  edges.weight = random_tensor({edges.source.numel()}, 3, 0.5, 1.5);
  const graph_io::PrepareOptions gcn = options_of(SelfLoops::Add, Normalization::Symmetric);
  graph_io::AdjacencyVariants variants(graph_io::prepare_adjacency(edges, gcn), gcn);
  try {
    variants.get({Normalization::None, SelfLoops::Add});
    FAIL("expected InvalidArgument");
  } catch (const InvalidArgument& error) {
    CHECK(std::string(error.what()).find("raw weights are not kept") != std::string::npos);
  }
}
