// Graph: everything a model needs, prepared once and kept on one device.
//
// make_graph(dataset, options, device, cache_dir):
//   1. reorders the nodes (options.reordering) consistently in edges,
//      features, labels and splits, keeping node_order to map results back;
//   2. prepares the adjacency (prepare_adjacency with options.prepare, on
//      `device`; options.prepare.device is ignored);
//   3. moves features, labels and splits to `device`;
//   4. with options.edge_features, moves the dataset's edge features into
//      the prepared adjacency's entry order on `device` (Graph::edge_features;
//      the rule: prepare_adjacency's entry_edges, graph_io/prepare.hpp).
// With a cache_dir, steps 1–2 are replaced by loading
// <cache_dir>/adjacency-<fingerprint>.sgnn when its fingerprint (the
// dataset's stored fingerprint, or a hash of its edges, num_nodes and
// weights when it has none; prepare options, reordering, format version) matches;
// otherwise the result is stored there (atomically). A corrupt, truncated,
// stale or unwritable cache is reported on stderr and rebuilt, never trusted.
// Without reordering, step 3 runs on a thread of its own during steps 1-2.
// Mapped sections the dataset left unchecked (Dataset::unchecked) are
// checked where they are read: the features during their upload, the edges
// before a build. Throws what the steps throw (InvalidArgument for bad
// edges, IoError for a damaged processed file, device errors).
#pragma once

#include <memory>
#include <string>

#include "graph_io/adjacency_variants.hpp"
#include "graph_io/dataset.hpp"
#include "graph_io/graph_options.hpp"

namespace sgnn::graph_io {

struct PreparationStatistics {
  double read_ms = 0;      // reading the dataset files (Dataset::read_ms)
  double prepare_ms = 0;   // make_graph: cache load or build (+ store), reordering, uploads
  double cache_ms = 0;     // of which loading the adjacency cache on a hit (mapping, upload, derivation)
  double adjacency_ms = 0; // of which the adjacency: cache load, or build (+ store)
  double upload_ms = 0;    // the node tensors (features, labels, splits) to the device, on their own thread
  bool cache_hit = false;
  std::string cache_path;  // empty without a cache_dir
};

struct Graph {
  Adjacency adjacency;
  Tensor features, labels, train_index, valid_index, test_index;  // on the graph's device (undefined if absent)
  // float32 [nnz, F_e] on the graph's device: row k the features of entry k
  // of `adjacency` (not of the other forms in `forms`, whose entries
  // differ); undefined without GraphOptions::edge_features or without edge
  // features in the dataset.
  Tensor edge_features;
  int64_t num_nodes = 0;
  int64_t num_classes = 0;
  PreparationStatistics statistics;
  // Host int32 [N]: node_order[i] = the dataset's id of node i (undefined without reordering).
  Tensor node_order;
  // The adjacency in the other forms layers may ask for (another
  // normalisation or self-loop choice), each derived once on request
  // (graph_io/adjacency_variants.hpp); set by make_graph.
  std::shared_ptr<AdjacencyVariants> forms;
};

Graph make_graph(const Dataset& dataset, const GraphOptions& options, Device device, const std::string& cache_dir = "");

}  // namespace sgnn::graph_io
