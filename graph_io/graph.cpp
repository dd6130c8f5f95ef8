#include "graph_io/graph.hpp"

#include <chrono>
#include <iostream>

#include "graph_io/adjacency_cache.hpp"

namespace sgnn::graph_io {

namespace {

Tensor to_device(const Tensor& tensor, Device device) { return tensor.defined() ? tensor.to(device) : Tensor(); }

void warn(const std::string& message) { std::cerr << "sparsegnn: warning: " << message << "\n"; }

// Steps 1–2 of make_graph without a cache.
CachedAdjacency build(const Dataset& dataset, const GraphOptions& options, Device device) {
  PrepareOptions prepare = options.prepare;
  prepare.device = device;
  CachedAdjacency built;
  if (options.reordering == Reordering::None) {
    built.adjacency = prepare_adjacency(dataset.edges, prepare);
    return built;
  }
  built.node_order = compute_node_order(dataset.edges, options.reordering);
  Dataset edges_only;
  edges_only.edges = dataset.edges;
  built.adjacency = prepare_adjacency(reorder_dataset(edges_only, built.node_order).edges, prepare);
  return built;
}

}  // namespace

GraphOptions gcn_graph_options() {
  GraphOptions options;
  options.prepare.symmetrize = true;
  options.prepare.self_loops = SelfLoops::Add;
  options.prepare.normalization = Normalization::Symmetric;
  return options;
}

GraphOptions gat_graph_options() {
  GraphOptions options;
  options.prepare.symmetrize = true;
  options.prepare.self_loops = SelfLoops::Add;
  options.prepare.normalization = Normalization::None;
  return options;
}

Graph make_graph(const Dataset& dataset, const GraphOptions& options, Device device, const std::string& cache_dir) {
  const auto started = std::chrono::steady_clock::now();
  require_available(device);
  Graph graph;
  graph.statistics.read_ms = dataset.read_ms;

  std::optional<CachedAdjacency> prepared;
  uint64_t fingerprint = 0;
  if (!cache_dir.empty()) {
    fingerprint = adjacency_fingerprint(dataset.edges, options);
    const std::filesystem::path file = adjacency_cache_path(cache_dir, fingerprint);
    graph.statistics.cache_path = file.string();
    std::string problem;
    prepared = load_adjacency_cache(file, fingerprint, problem, device);
    if (prepared) {
      graph.statistics.cache_hit = true;
    } else if (!problem.empty()) {
      warn(detail::concat("ignoring the adjacency cache (", problem, "); rebuilding it"));
    }
  }
  if (!prepared) {
    prepared = build(dataset, options, device);
    if (!cache_dir.empty()) {
      try {
        prepared->weighted_edges = dataset.edges.weight.defined();
        prepared->normalization = options.prepare.normalization;
        store_adjacency_cache(graph.statistics.cache_path, fingerprint, *prepared);
      } catch (const Error& failure) {
        warn(detail::concat("could not write the adjacency cache (", failure.what(), "); continuing without it"));
      }
    }
  }

  graph.adjacency = std::move(prepared->adjacency);
  graph.node_order = prepared->node_order;
  Dataset nodes = dataset;
  if (graph.node_order.defined()) {
    nodes.edges = EdgeList{dataset.edges.num_nodes, {}, {}, {}};  // edges are already in the adjacency
    nodes = reorder_dataset(nodes, graph.node_order);
  }
  graph.features = to_device(nodes.features, device);
  graph.labels = to_device(nodes.labels, device);
  graph.train_index = to_device(nodes.train_index, device);
  graph.valid_index = to_device(nodes.valid_index, device);
  graph.test_index = to_device(nodes.test_index, device);
  graph.num_nodes = dataset.num_nodes();
  graph.num_classes = dataset.num_classes;
  memory::synchronize(device);
  graph.statistics.prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return graph;
}

}  // namespace sgnn::graph_io
