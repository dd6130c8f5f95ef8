// The arrays of a Block as the backends fill them, and the Block they make.
#pragma once

#include "sampling/block.hpp"

namespace sgnn::sampling {

struct BlockArrays {
  int64_t num_destinations = 0;
  int64_t num_sources = 0;
  int64_t num_edges = 0;
  Tensor indptr;             // int32 [nd + 1]
  Tensor indices;            // int32 [E] local source ids
  Tensor transpose_indptr;   // int32 [ns + 1]
  Tensor transpose_indices;  // int32 [E] destination of each entry of Aᵀ
  Tensor transpose_to_csr;   // int32 [E]
  Tensor values;             // float32 [E] 1 / row length
  Tensor transpose_values;   // float32 [E]
  Tensor source_ids;         // int32 [ns]
};

inline Block assemble_block(BlockArrays arrays) {
  Block block;
  Adjacency& a = block.adjacency;
  a.csr.num_rows = arrays.num_destinations;
  a.csr.num_cols = arrays.num_sources;
  a.csr.nnz = arrays.num_edges;
  a.csr.indptr = std::move(arrays.indptr);
  a.csr.indices = std::move(arrays.indices);
  a.transpose.num_rows = arrays.num_sources;
  a.transpose.num_cols = arrays.num_destinations;
  a.transpose.nnz = arrays.num_edges;
  a.transpose.indptr = std::move(arrays.transpose_indptr);
  a.transpose.indices = std::move(arrays.transpose_indices);
  a.transpose_to_csr = std::move(arrays.transpose_to_csr);
  a.values = std::move(arrays.values);
  a.transpose_values = std::move(arrays.transpose_values);
  a.spmm_format = SpmmFormat::Csr;
  block.source_ids = std::move(arrays.source_ids);
  return block;
}

// Blocks index their edges with int32: a batch of 2^31 sampled edges is
// refused (InvalidArgument) rather than silently wrapped.
inline void check_block_edges(int64_t edges) {
  SGNN_CHECK(edges < (int64_t{1} << 31), "NeighborSampler: one hop sampled ", edges,
             " edges, more than a block holds (2^31 - 1): use a smaller batch or fanout");
}

}  // namespace sgnn::sampling
