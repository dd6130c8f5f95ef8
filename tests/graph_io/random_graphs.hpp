// Random and adversarial edge lists for comparing adjacency builders: repeats,
// self loops, empty rows, a hub row, weights, every option combination.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "graph_io/prepare.hpp"

namespace sgnn::testing {

struct NamedEdges {
  std::string name;
  graph_io::EdgeList edges;
};

inline graph_io::EdgeList edges_from(int64_t n, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                                     const std::vector<float>& weight = {}) {
  graph_io::EdgeList edges;
  edges.num_nodes = n;
  edges.source = Tensor::from_vector(source, {static_cast<int64_t>(source.size())});
  edges.target = Tensor::from_vector(target, {static_cast<int64_t>(target.size())});
  if (!weight.empty()) edges.weight = Tensor::from_vector(weight, {static_cast<int64_t>(weight.size())});
  return edges;
}

// `hub_edges` > 0 adds that many edges into node 0 (a hub row in A).
inline graph_io::EdgeList random_edges(int64_t n, int64_t e, uint64_t seed, bool weighted, int64_t hub_edges = 0) {
  std::mt19937_64 engine(seed);
  // A small id range for half the edges makes repeats and loops common.
  std::uniform_int_distribution<int32_t> any(0, static_cast<int32_t>(n - 1));
  std::uniform_int_distribution<int32_t> few(0, static_cast<int32_t>(std::min<int64_t>(n - 1, 5)));
  std::uniform_real_distribution<float> w(0.25f, 4.0f);
  std::vector<int32_t> s, t;
  std::vector<float> weights;
  for (int64_t k = 0; k < e; ++k) {
    const bool crowded = k % 2 == 0;
    s.push_back(crowded ? few(engine) : any(engine));
    t.push_back(crowded ? few(engine) : any(engine));
    if (weighted) weights.push_back(w(engine));
  }
  for (int64_t k = 0; k < hub_edges; ++k) {
    s.push_back(any(engine));
    t.push_back(0);
    if (weighted) weights.push_back(w(engine));
  }
  return edges_from(n, s, t, weights);
}

// Whether the large graphs are wanted: scripts/compute-sanitizer.sh sets
// SGNN_TEST_GRAPHS=small, because under memcheck every option on a
// 1M-edge graph takes over 8 minutes per test case.
inline bool small_test_graphs_requested() {
  const char* value = std::getenv("SGNN_TEST_GRAPHS");
  return value != nullptr && std::string(value) == "small";
}

// SGNN_TEST_GRAPH_SHARD=K/N keeps graphs K, K + N, K + 2N, ... of the list,
// so that N sanitizer processes can share the "every option" test cases;
// unset, malformed or out of range: all graphs.
inline std::vector<NamedEdges> graph_shard(std::vector<NamedEdges> graphs) {
  const char* value = std::getenv("SGNN_TEST_GRAPH_SHARD");
  int shard = 0, shards = 0;
  char extra = 0;
  if (value == nullptr || std::sscanf(value, "%d/%d%c", &shard, &shards, &extra) != 2 || shards < 1 || shard < 0 ||
      shard >= shards) {
    return graphs;
  }
  std::vector<NamedEdges> kept;
  for (std::size_t i = static_cast<std::size_t>(shard); i < graphs.size(); i += static_cast<std::size_t>(shards)) {
    kept.push_back(std::move(graphs[i]));
  }
  return kept;
}

inline std::vector<NamedEdges> test_graphs(bool large) {
  std::vector<NamedEdges> graphs;
  graphs.push_back({"no edges", edges_from(5, {}, {})});
  graphs.push_back({"single node loop", edges_from(1, {0, 0}, {0, 0}, {2.0f, 3.0f})});
  for (uint64_t seed = 0; seed < 3; ++seed) {
    graphs.push_back({"random unweighted " + std::to_string(seed), random_edges(37 + 11 * static_cast<int64_t>(seed), 300, seed, false)});
    graphs.push_back({"random weighted " + std::to_string(seed), random_edges(41 + 7 * static_cast<int64_t>(seed), 300, seed + 10, true)});
  }
  graphs.push_back({"many empty rows", random_edges(5000, 200, 21, true)});
  if (large && small_test_graphs_requested()) {
    graphs.push_back({"hub row of 5000 edges", random_edges(3001, 20000, 22, true, 5000)});
  } else if (large) {
    graphs.push_back({"hub row of 100000 edges", random_edges(30001, 200000, 22, true, 100000)});
    graphs.push_back({"large unweighted", random_edges(100003, 1000000, 23, false)});
  }
  return graph_shard(std::move(graphs));
}

inline std::vector<graph_io::PrepareOptions> all_prepare_options() {
  std::vector<graph_io::PrepareOptions> all;
  for (const bool symmetrize : {false, true}) {
    for (const auto loops : {graph_io::SelfLoops::Keep, graph_io::SelfLoops::Add, graph_io::SelfLoops::Remove}) {
      for (const auto duplicates : {graph_io::Duplicates::Merge, graph_io::Duplicates::Drop}) {
        for (const auto norm : {graph_io::Normalization::None, graph_io::Normalization::Symmetric, graph_io::Normalization::Row}) {
          graph_io::PrepareOptions options;
          options.symmetrize = symmetrize;
          options.self_loops = loops;
          options.duplicates = duplicates;
          options.normalization = norm;
          options.edge_map = duplicates == graph_io::Duplicates::Merge;  // both, for every other option
          options.symmetric_scale = loops != graph_io::SelfLoops::Keep;  // likewise
          all.push_back(options);
        }
      }
    }
  }
  return all;
}

inline std::string describe(const graph_io::PrepareOptions& o) {
  return "symmetrize=" + std::to_string(o.symmetrize) + " loops=" + std::to_string(static_cast<int>(o.self_loops)) +
         " duplicates=" + std::to_string(static_cast<int>(o.duplicates)) +
         " normalization=" + std::to_string(static_cast<int>(o.normalization)) +
         " edge_map=" + std::to_string(o.edge_map) + " symmetric_scale=" + std::to_string(o.symmetric_scale);
}

}  // namespace sgnn::testing
