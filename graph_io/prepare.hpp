// prepare_adjacency: from an edge list to the Adjacency the ops consume
// (CSR of A with A[target, source] = weight, its transpose and edge map,
// optional normalised values, and the SpMM row order), on options.device.
#pragma once

#include "core/adjacency.hpp"
#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

enum class SelfLoops : unsigned char {
  Keep,    // as in the input
  Add,     // every node gets exactly one self loop (existing ones kept, weight 1 added where missing)
  Remove,  // all self loops dropped
};

enum class Duplicates : unsigned char {
  Merge,  // repeated (target, source) pairs become one entry whose weight is their sum
  Drop,   // repeated pairs become one entry with the first occurrence's weight
};

enum class Normalization : unsigned char {
  None,       // values = edge weights (undefined when the input has none and none are needed)
  Symmetric,  // GCN: D^-1/2 A D^-1/2, D = row sums of A (after self loops)
  Row,        // mean aggregation: D^-1 A
};

struct PrepareOptions {
  bool symmetrize = false;  // add the reverse of every edge before merging duplicates
  SelfLoops self_loops = SelfLoops::Keep;
  Duplicates duplicates = Duplicates::Merge;
  Normalization normalization = Normalization::None;
  Device device = Device::cpu();
  // Keep Adjacency::transpose_to_csr, which moves per-edge tensors (GAT's
  // attention, learned edge weights) into Aᵀ's order. GCN's fixed weights
  // have their transposed copy and need no map: without it the adjacency
  // holds one nnz-sized array less (a symmetric graph never builds it).
  bool edge_map = true;
  // With Normalization::Symmetric and unweighted edges: keep the per-node
  // scales D^-1/2 (Adjacency::symmetric_scale) instead of nnz float values;
  // the SpMM multiplies them in, with the same bits (GCN's training path).
  // Consumers that need the values themselves take stored_weights().
  bool symmetric_scale = false;
};

// Whether `options` keep the symmetric scale for edges with (or without) weights.
inline bool keeps_symmetric_scale(const PrepareOptions& options, bool weighted_edges) {
  return options.symmetric_scale && options.normalization == Normalization::Symmetric && !weighted_edges;
}

// Throws InvalidArgument when the edge list is invalid.
Adjacency prepare_adjacency(const EdgeList& edges, const PrepareOptions& options);

}  // namespace sgnn::graph_io
