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
//
// Per-edge data (edge features) follows A's entries by one rule; with
// `entry_edges`, *entry_edges receives int64 [nnz] on options.device: the
// input edge (row of the edge list) whose data entry k of A takes.
//   - an entry takes the edge it was made from; the reverse entry that
//     symmetrize adds for edge k takes edge k (an undirected edge listed
//     once has one feature vector, read in both directions);
//   - entries at one position (repeats, and an edge beside another's
//     reverse) take the first of them in the order: the input edges in
//     their order, then the reverses in theirs (so a listed edge wins over
//     a reverse), whichever of Merge and Drop collapses their weights
//     (Drop's rule for weights);
//   - a self loop that SelfLoops::Add adds takes none: -1, zero features
//     (not PyG's fill_value='mean': a node's own row stays its own, as the
//     root term of GIN-like layers wants);
//   - SelfLoops::Remove drops loops with their data.
Adjacency prepare_adjacency(const EdgeList& edges, const PrepareOptions& options, Tensor* entry_edges = nullptr);

// Edge features [E, F] float32 (any device) in A's entry order: row k is
// features[entry_edges[k]], zeros where entry_edges[k] = -1. `entry_edges`
// int64 [nnz] from prepare_adjacency, values in [-1, E); the result
// float32 [nnz, F] on entry_edges' device. InvalidArgument for other
// shapes or dtypes, or an entry edge out of range.
Tensor edge_features_in_entry_order(const Tensor& features, const Tensor& entry_edges);

}  // namespace sgnn::graph_io
