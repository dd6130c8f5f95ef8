// Graphs and independent checks for the sampling tests (CPU tier, and the
// GPU tier's comparisons): adjacency lists built from a seed, their CSR, and
// a block checker that knows nothing of the sampler's code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include <doctest/doctest.h>

#include "core/csr.hpp"
#include "sampling/block.hpp"

namespace sgnn::testing {

// in_neighbours[v]: the sorted, distinct in-neighbours of v.
using AdjacencyLists = std::vector<std::vector<int32_t>>;

// `nodes` nodes: node 0 a hub with `hub_degree` in-neighbours, the last
// `isolated` nodes without any, the others 1..2·mean_degree random ones.
inline AdjacencyLists random_lists(int64_t nodes, int64_t hub_degree, int64_t isolated, int64_t mean_degree,
                                   uint64_t seed) {
  std::mt19937_64 random(seed);
  AdjacencyLists lists(static_cast<std::size_t>(nodes));
  const int64_t connected = nodes - isolated;
  std::uniform_int_distribution<int32_t> node(1, static_cast<int32_t>(connected - 1));
  std::uniform_int_distribution<int64_t> degree(1, 2 * mean_degree);
  for (int64_t v = 0; v < connected; ++v) {
    std::set<int32_t> chosen;
    const int64_t wanted = v == 0 ? hub_degree : degree(random);
    while (static_cast<int64_t>(chosen.size()) < wanted) chosen.insert(node(random));
    lists[static_cast<std::size_t>(v)].assign(chosen.begin(), chosen.end());
  }
  return lists;
}

inline Csr csr_of(const AdjacencyLists& lists, bool wide_indptr = false) {
  const auto n = static_cast<int64_t>(lists.size());
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  for (const auto& list : lists) {
    indices.insert(indices.end(), list.begin(), list.end());
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  Csr csr;
  csr.num_rows = csr.num_cols = n;
  csr.nnz = static_cast<int64_t>(indices.size());
  if (wide_indptr) {
    csr.indptr = Tensor::from_vector(indptr, {n + 1});
  } else {
    std::vector<int32_t> narrow(indptr.begin(), indptr.end());
    csr.indptr = Tensor::from_vector(narrow, {n + 1});
  }
  csr.indices = Tensor::from_vector(indices, {csr.nnz});
  return csr;
}

// Checks one block against the graph: the destinations lead the sources,
// sources are distinct with the new ones ascending, every entry is an
// in-edge of the graph, each row keeps min(degree, fanout) distinct
// neighbours without replacement (fanout with replacement when it has any,
// every one for -1), rows sorted, the transpose and mean weights consistent.
inline void check_block(const sampling::Block& block, const AdjacencyLists& lists, const std::vector<int32_t>& destinations,
                        int64_t fanout, bool replace) {
  const sampling::Block host{block.adjacency.to(Device::cpu()), block.source_ids.to(Device::cpu())};
  const std::vector<int32_t> sources = host.source_ids.to_vector<int32_t>();
  const auto nd = static_cast<int64_t>(destinations.size());
  REQUIRE(host.num_destinations() == nd);
  REQUIRE(host.num_sources() == static_cast<int64_t>(sources.size()));
  for (int64_t i = 0; i < nd; ++i) REQUIRE(sources[static_cast<std::size_t>(i)] == destinations[static_cast<std::size_t>(i)]);
  for (std::size_t k = static_cast<std::size_t>(nd) + 1; k < sources.size(); ++k) REQUIRE(sources[k - 1] < sources[k]);
  std::set<int32_t> distinct(sources.begin(), sources.end());
  REQUIRE(distinct.size() == sources.size());
  const std::vector<int32_t> indptr = host.adjacency.csr.indptr.to_vector<int32_t>();
  const std::vector<int32_t> indices = host.adjacency.csr.indices.to_vector<int32_t>();
  const std::vector<float> values = host.adjacency.values.to_vector<float>();
  std::vector<char> referenced(sources.size(), 0);
  for (int64_t i = 0; i < nd; ++i) {
    const auto& neighbours = lists[static_cast<std::size_t>(destinations[static_cast<std::size_t>(i)])];
    const auto degree = static_cast<int64_t>(neighbours.size());
    const int64_t begin = indptr[static_cast<std::size_t>(i)], end = indptr[static_cast<std::size_t>(i) + 1];
    const int64_t expected = fanout < 0 ? degree : replace ? (degree > 0 ? fanout : 0) : std::min(degree, fanout);
    REQUIRE(end - begin == expected);
    for (int64_t e = begin; e < end; ++e) {
      const int32_t local = indices[static_cast<std::size_t>(e)];
      REQUIRE(local >= 0);
      REQUIRE(local < static_cast<int64_t>(sources.size()));
      referenced[static_cast<std::size_t>(local)] = 1;
      REQUIRE(std::binary_search(neighbours.begin(), neighbours.end(), sources[static_cast<std::size_t>(local)]));
      if (e > begin) REQUIRE((replace ? indices[static_cast<std::size_t>(e) - 1] <= local : indices[static_cast<std::size_t>(e) - 1] < local));
      REQUIRE(values[static_cast<std::size_t>(e)] == doctest::Approx(1.0 / static_cast<double>(end - begin)));
    }
  }
  // Every source past the destinations is some row's sampled neighbour.
  for (std::size_t k = static_cast<std::size_t>(nd); k < sources.size(); ++k) REQUIRE(referenced[k]);
  // The transpose mirrors A through the edge map, rows ascending within a column.
  const std::vector<int32_t> t_indptr = host.adjacency.transpose.indptr.to_vector<int32_t>();
  const std::vector<int32_t> t_indices = host.adjacency.transpose.indices.to_vector<int32_t>();
  const std::vector<int32_t> t_map = host.adjacency.transpose_to_csr.to_vector<int32_t>();
  const std::vector<float> t_values = host.adjacency.transpose_values.to_vector<float>();
  REQUIRE(static_cast<int64_t>(t_indptr.size()) == host.num_sources() + 1);
  REQUIRE(t_indptr.back() == host.num_edges());
  std::vector<int64_t> row_of(indices.size());
  for (int64_t i = 0; i < nd; ++i) {
    for (int32_t e = indptr[static_cast<std::size_t>(i)]; e < indptr[static_cast<std::size_t>(i) + 1]; ++e) row_of[static_cast<std::size_t>(e)] = i;
  }
  std::vector<char> seen(indices.size(), 0);
  for (std::size_t c = 0; c + 1 < t_indptr.size(); ++c) {
    for (int32_t k = t_indptr[c]; k < t_indptr[c + 1]; ++k) {
      const auto e = static_cast<std::size_t>(t_map[static_cast<std::size_t>(k)]);
      REQUIRE(e < indices.size());
      REQUIRE_FALSE(seen[e]);
      seen[e] = 1;
      REQUIRE(indices[e] == static_cast<int32_t>(c));
      REQUIRE(t_indices[static_cast<std::size_t>(k)] == row_of[e]);
      REQUIRE(t_values[static_cast<std::size_t>(k)] == values[e]);
      if (k > t_indptr[c]) REQUIRE(t_map[static_cast<std::size_t>(k) - 1] < t_map[static_cast<std::size_t>(k)]);
    }
  }
  if (!replace) host.adjacency.validate();  // the library's own check agrees
}

}  // namespace sgnn::testing
