#include "graph_io/graph.hpp"

#include <chrono>
#include <future>
#include <iostream>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/processed_dataset.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

Tensor to_device(const Tensor& tensor, Device device) { return tensor.defined() ? tensor.to(device) : Tensor(); }

void warn(const std::string& message) { std::cerr << "sparsegnn: warning: " << message << "\n"; }

// Whether the graph carries the dataset's edge features.
bool carries_edge_features(const Dataset& dataset, const GraphOptions& options) {
  return options.edge_features && dataset.edge_features.defined();
}

// Steps 1–2 of make_graph without a cache (the reordering keeps the edges'
// order, so the entries' edges index the dataset's edge features either way).
CachedAdjacency build(const Dataset& dataset, const GraphOptions& options, Device device) {
  PrepareOptions prepare = options.prepare;
  prepare.device = device;
  CachedAdjacency built;
  Tensor* entry_edges = nullptr;
  if (carries_edge_features(dataset, options)) {
    entry_edges = &built.entry_edges;
    built.edge_count = dataset.edges.num_edges();
  }
  if (options.reordering == Reordering::None) {
    built.adjacency = prepare_adjacency(dataset.edges, prepare, entry_edges);
    return built;
  }
  built.node_order = compute_node_order(dataset.edges, options.reordering);
  Dataset edges_only;
  edges_only.edges = dataset.edges;
  built.adjacency = prepare_adjacency(reorder_dataset(edges_only, built.node_order).edges, prepare, entry_edges);
  return built;
}

// A cache hit's entry edges must index this dataset's edge features.
std::string entry_edges_problem(const CachedAdjacency& cached, const Dataset& dataset, const GraphOptions& options) {
  if (!carries_edge_features(dataset, options)) return "";
  if (!cached.entry_edges.defined()) return "it holds no entry edges for the edge features";
  if (cached.edge_count != dataset.edges.num_edges()) {
    return detail::concat("its entry edges index ", cached.edge_count, " edges, the dataset has ",
                          dataset.edges.num_edges());
  }
  return "";
}

// The dataset's edge features in the adjacency's entry order, on `device`.
Tensor entry_edge_features(const Dataset& dataset, const Tensor& entry_edges, Device device) {
  Dataset checked = dataset;  // read now: check what the processed file left unchecked
  verify_section(checked, "edge_features");
  return edge_features_in_entry_order(checked.edge_features, entry_edges.to(device));
}

struct NodeTensors {
  Tensor features, labels, train_index, valid_index, test_index;
};

// The node tensors on `device`. Features go through the staged upload, with
// their checksum checked on the way when the dataset was mapped unchecked.
NodeTensors upload_nodes(const Dataset& nodes, Device device, double& milliseconds) {
  const auto started = std::chrono::steady_clock::now();
  NodeTensors out;
  if (nodes.features.defined()) {
    const auto crc = nodes.unchecked.find("features");
    const std::optional<uint32_t> expected =
        crc == nodes.unchecked.end() ? std::nullopt : std::optional<uint32_t>(crc->second);
    out.features = upload_checked({{"features", nodes.features, expected}}, device, nodes.load.processed_path)[0];
  }
  out.labels = to_device(nodes.labels, device);
  out.train_index = to_device(nodes.train_index, device);
  out.valid_index = to_device(nodes.valid_index, device);
  out.test_index = to_device(nodes.test_index, device);
  memory::synchronize(device);
  milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace

Graph make_graph(const Dataset& dataset, const GraphOptions& options, Device device, const std::string& cache_dir) {
  const auto started = std::chrono::steady_clock::now();
  require_available(device);
  Graph graph;
  graph.statistics.read_ms = dataset.read_ms;

  // Without reordering the node tensors do not depend on the adjacency: they
  // go to the device on their own thread while the adjacency is loaded or built.
  std::future<NodeTensors> nodes_uploaded;
  if (options.reordering == Reordering::None) {
    nodes_uploaded = std::async(std::launch::async, [&dataset, device, &graph] {
      return upload_nodes(dataset, device, graph.statistics.upload_ms);
    });
  }
  // Waits for that thread on every way out, so it never outlives `dataset`.
  struct Join {
    std::future<NodeTensors>& future;
    ~Join() {
      if (future.valid()) future.wait();
    }
  } join{nodes_uploaded};

  const auto adjacency_started = std::chrono::steady_clock::now();
  std::optional<CachedAdjacency> prepared;
  uint64_t fingerprint = 0;
  if (!cache_dir.empty()) {
    const AdjacencyCacheEntry entry = adjacency_cache_entry(cache_dir, dataset, options);
    fingerprint = entry.fingerprint;
    graph.statistics.cache_path = entry.file.string();
    std::string problem;
    const auto cache_started = std::chrono::steady_clock::now();
    prepared = load_adjacency_cache(entry.file, fingerprint, problem, device, options.prepare);
    if (prepared) {
      problem = entry_edges_problem(*prepared, dataset, options);
      if (!problem.empty()) prepared.reset();
    }
    if (prepared) {
      graph.statistics.cache_hit = true;
      graph.statistics.cache_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cache_started).count();
    } else if (!problem.empty()) {
      warn(detail::concat("ignoring the adjacency cache (", problem, "); rebuilding it"));
    }
  }
  if (!prepared) {
    Dataset checked = dataset;  // the edges are read now: check what the processed file left unchecked
    for (const char* section : {"edges.source", "edges.target", "edges.weight"}) verify_section(checked, section);
    prepared = build(checked, options, device);
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

  memory::synchronize(device);
  graph.statistics.adjacency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - adjacency_started).count();
  if (carries_edge_features(dataset, options)) {
    graph.edge_features = entry_edge_features(dataset, prepared->entry_edges, device);
  }
  graph.adjacency = std::move(prepared->adjacency);
  graph.node_order = prepared->node_order;
  graph.forms = std::make_shared<AdjacencyVariants>(graph.adjacency, options.prepare);
  NodeTensors nodes;
  if (nodes_uploaded.valid()) {
    nodes = nodes_uploaded.get();
  } else {
    Dataset reordered = dataset;
    reordered.edges = EdgeList{dataset.edges.num_nodes, {}, {}, {}};  // edges are already in the adjacency
    if (graph.node_order.defined()) {
      if (reordered.unchecked.contains("features")) verify_section(reordered, "features");  // read by the reordering
      reordered = reorder_dataset(reordered, graph.node_order);
    }
    nodes = upload_nodes(reordered, device, graph.statistics.upload_ms);
  }
  graph.features = nodes.features;
  graph.labels = nodes.labels;
  graph.train_index = nodes.train_index;
  graph.valid_index = nodes.valid_index;
  graph.test_index = nodes.test_index;
  graph.num_nodes = dataset.num_nodes();
  graph.num_classes = dataset.num_classes;
  memory::synchronize(device);
  graph.statistics.prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return graph;
}

}  // namespace sgnn::graph_io
