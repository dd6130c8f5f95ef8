#include "graph_io/boost_graph.hpp"

#include <parallel/algorithm>

#include <algorithm>
#include <utility>
#include <vector>

namespace sgnn::graph_io {

BoostCsrGraph undirected_boost_graph(const EdgeList& edges) {
  edges.validate();
  const std::vector<int32_t> sources = edges.num_edges() > 0 ? edges.source.to_vector<int32_t>() : std::vector<int32_t>{};
  const std::vector<int32_t> targets = edges.num_edges() > 0 ? edges.target.to_vector<int32_t>() : std::vector<int32_t>{};
  std::vector<std::pair<int32_t, int32_t>> pairs;
  pairs.reserve(2 * sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    if (sources[k] == targets[k]) continue;
    pairs.emplace_back(sources[k], targets[k]);
    pairs.emplace_back(targets[k], sources[k]);
  }
  __gnu_parallel::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return BoostCsrGraph(boost::edges_are_sorted, pairs.begin(), pairs.end(), static_cast<std::size_t>(edges.num_nodes));
}

}  // namespace sgnn::graph_io
