// Block: one layer's slice of a sampled mini-batch, as DGL's blocks are: a
// bipartite graph from `num_sources` source nodes to `num_destinations`
// destination nodes, where the destinations are the first num_destinations
// sources (so x_destination = x_source[:num_destinations]).
//
//   adjacency   an Adjacency like every other (core/adjacency.hpp): rows are
//               the destinations [num_destinations], columns the sources
//               [num_sources], int32 indptr and local source ids, each row's
//               columns sorted (repeats only when sampled with replacement);
//               transpose and transpose_to_csr (int32) for the backward; and
//               values = 1 / (row length) in A's order with transpose_values
//               in Aᵀ's: ops::spmm(adjacency, x) is the mean over the
//               sampled neighbours (an empty row gives 0). So the sparse ops
//               and kernels of full-graph training run on a block unchanged.
//   source_ids  int32 [num_sources] global node ids on the adjacency's
//               device; source_ids[0, num_destinations) are the
//               destinations in the order they were given.
//
// On a CUDA device the sampler also registers the sparse launch plans of
// both CSRs (built on the GPU, ops::register_sparse_plan), so the SpMM
// of a fresh block never reads it back to the host.
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"

namespace sgnn::sampling {

struct Block {
  Adjacency adjacency;
  Tensor source_ids;

  int64_t num_destinations() const { return adjacency.num_rows(); }
  int64_t num_sources() const { return adjacency.num_cols(); }
  int64_t num_edges() const { return adjacency.nnz(); }
  Device device() const { return adjacency.device(); }
};

}  // namespace sgnn::sampling
