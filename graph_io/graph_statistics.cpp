#include "graph_io/graph_statistics.hpp"

#include <boost/graph/connected_components.hpp>
#include <parallel/algorithm>

#include <algorithm>
#include <vector>

#include "graph_io/boost_graph.hpp"

namespace sgnn::graph_io {

namespace {

DegreeStatistics degree_statistics(const std::vector<int32_t>& ends, int64_t n) {
  DegreeStatistics s;
  if (n == 0) return s;
  std::vector<int64_t> degree(static_cast<std::size_t>(n), 0);
  for (const int32_t v : ends) ++degree[static_cast<std::size_t>(v)];
  std::sort(degree.begin(), degree.end());
  s.min = degree.front();
  s.max = degree.back();
  s.mean = static_cast<double>(ends.size()) / static_cast<double>(n);
  const std::size_t middle = degree.size() / 2;
  s.median = degree.size() % 2 == 1 ? static_cast<double>(degree[middle])
                                    : 0.5 * static_cast<double>(degree[middle - 1] + degree[middle]);
  s.zero = std::count(degree.begin(), degree.end(), 0);
  return s;
}

}  // namespace

GraphStatistics describe_graph(const EdgeList& edges) {
  edges.validate();
  GraphStatistics s;
  s.num_nodes = edges.num_nodes;
  s.num_edges = edges.num_edges();
  const std::vector<int32_t> sources = s.num_edges > 0 ? edges.source.to_vector<int32_t>() : std::vector<int32_t>{};
  const std::vector<int32_t> targets = s.num_edges > 0 ? edges.target.to_vector<int32_t>() : std::vector<int32_t>{};
  std::vector<uint64_t> forward, backward;
  forward.reserve(sources.size());
  backward.reserve(sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    s.self_loops += sources[k] == targets[k] ? 1 : 0;
    forward.push_back((static_cast<uint64_t>(static_cast<uint32_t>(sources[k])) << 32) | static_cast<uint32_t>(targets[k]));
    backward.push_back((static_cast<uint64_t>(static_cast<uint32_t>(targets[k])) << 32) | static_cast<uint32_t>(sources[k]));
  }
  __gnu_parallel::sort(forward.begin(), forward.end());
  __gnu_parallel::sort(backward.begin(), backward.end());
  s.symmetric = forward == backward;
  s.repeated_edges = static_cast<int64_t>(forward.size()) -
                     static_cast<int64_t>(std::unique(forward.begin(), forward.end()) - forward.begin());
  s.in_degree = degree_statistics(targets, s.num_nodes);
  s.out_degree = degree_statistics(sources, s.num_nodes);
  if (s.num_nodes > 0) {
    const BoostCsrGraph graph = undirected_boost_graph(edges);
    std::vector<int64_t> component(static_cast<std::size_t>(s.num_nodes));
    s.components = static_cast<int64_t>(boost::connected_components(
        graph, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, graph))));
    std::vector<int64_t> sizes(static_cast<std::size_t>(s.components), 0);
    for (const int64_t c : component) ++sizes[static_cast<std::size_t>(c)];
    for (const int64_t size : sizes) s.largest_component = std::max(s.largest_component, size);
  }
  return s;
}

std::string format_statistics(const GraphStatistics& s) {
  auto degrees = [](const DegreeStatistics& d) {
    return detail::concat("min ", d.min, ", median ", d.median, ", mean ", d.mean, ", max ", d.max, ", zero ", d.zero);
  };
  return detail::concat("nodes: ", s.num_nodes, "\nedges: ", s.num_edges, "\nself loops: ", s.self_loops,
                        "\nrepeated edges: ", s.repeated_edges, "\nsymmetric: ", s.symmetric ? "yes" : "no",
                        "\nin-degree: ", degrees(s.in_degree), "\nout-degree: ", degrees(s.out_degree),
                        "\nconnected components: ", s.components, " (largest ", s.largest_component, " nodes)\n");
}

}  // namespace sgnn::graph_io
