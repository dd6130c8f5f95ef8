#include "tests/support/sparse_graphs.hpp"

#include <random>

#include "graph_io/generators/generators.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::testing {

namespace {

Adjacency prepare(int64_t nodes, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                  const std::vector<float>& weight, Device device) {
  graph_io::EdgeList edges;
  edges.num_nodes = nodes;
  const int64_t count = static_cast<int64_t>(source.size());
  edges.source = Tensor::from_vector(source, {count});
  edges.target = Tensor::from_vector(target, {count});
  if (!weight.empty()) edges.weight = Tensor::from_vector(weight, {count});
  graph_io::PrepareOptions options;
  options.device = device;
  return graph_io::prepare_adjacency(edges, options);
}

}  // namespace

Adjacency random_graph(int64_t nodes, int64_t edges, uint64_t seed, bool weighted, Device device) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(nodes - 1));
  std::uniform_real_distribution<float> weight(0.5f, 1.5f);
  std::vector<int32_t> source(static_cast<std::size_t>(edges));
  std::vector<int32_t> target(static_cast<std::size_t>(edges));
  std::vector<float> weights;
  for (std::size_t k = 0; k < source.size(); ++k) {
    source[k] = node(engine);
    target[k] = node(engine);
    if (weighted) weights.push_back(weight(engine));
  }
  return prepare(nodes, source, target, weights, device);
}

Adjacency rmat_graph(int64_t nodes, int64_t edges, uint64_t seed, Device device) {
  graph_io::RmatOptions options;
  options.num_nodes = nodes;
  options.num_edges = edges;
  options.seed = seed;
  graph_io::PrepareOptions prepare_options;
  prepare_options.device = device;
  return graph_io::prepare_adjacency(graph_io::generate_rmat(options), prepare_options);
}

Adjacency hub_graph(int64_t nodes, int64_t hub_edges, int64_t hub, Device device) {
  std::vector<int32_t> source;
  std::vector<int32_t> target;
  for (int64_t k = 0; k < hub_edges; ++k) {  // edge k -> hub: entry (hub, k)
    source.push_back(static_cast<int32_t>(k));
    target.push_back(static_cast<int32_t>(hub));
  }
  for (int64_t row = 0; row < nodes; row += 3) {  // sparse background, every third row one entry
    if (row == hub) continue;
    source.push_back(static_cast<int32_t>((row * 7 + 1) % nodes));
    target.push_back(static_cast<int32_t>(row));
  }
  return prepare(nodes, source, target, {}, device);
}

EdgeCoordinates edge_coordinates(const Adjacency& adjacency) {
  const Csr host = adjacency.csr.to(Device::cpu());
  std::vector<int64_t> offsets;
  if (host.indptr.dtype() == DType::Int64) {
    offsets = host.indptr.to_vector<int64_t>();
  } else {
    const std::vector<int32_t> narrow = host.indptr.to_vector<int32_t>();
    offsets.assign(narrow.begin(), narrow.end());
  }
  const std::vector<int32_t> columns = host.indices.to_vector<int32_t>();
  EdgeCoordinates coordinates;
  for (int64_t row = 0; row < host.num_rows; ++row) {
    for (int64_t e = offsets[static_cast<std::size_t>(row)]; e < offsets[static_cast<std::size_t>(row + 1)]; ++e) {
      coordinates.row.push_back(row);
      coordinates.column.push_back(columns[static_cast<std::size_t>(e)]);
    }
  }
  return coordinates;
}

}  // namespace sgnn::testing
