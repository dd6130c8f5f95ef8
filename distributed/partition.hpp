// Row partition of a graph for full-graph training on several ranks (GPUs).
//
// Rank r owns the contiguous global rows [boundaries[r], boundaries[r+1]) of
// A and of the features. Boundaries balance the cost nnz(rows) + rows (the
// SpMM cost plus the dense per-row work), so ranks finish a layer together.
//
// Each rank keeps its row block of A as a rectangular local Adjacency whose
// columns are renumbered into [local rows | halo rows]:
//   column c < num_rows          local row c (global row row_begin + c)
//   column num_rows + h          halo row h (global row halo_rows[h])
// halo_rows are the remote rows the block reads, sorted by global id, hence
// grouped by owner (owners hold increasing ranges): the rows owner p sends
// are halo_rows[halo_offsets[p] .. halo_offsets[p+1]), so a receive lands in
// one contiguous slice of the [local | halo] feature buffer.
// send_rows[q] lists the local rows rank q needs from this rank, in q's halo
// order (the packing order of a send to q).
//
// Everything here is host-side bookkeeping; the local Adjacency is on the
// host and moved to the rank's device by the caller. A process of a
// multi-process run holds only its RankPartition (rank_partition(), or read
// from its partition file: partition_files.hpp), never the whole graph.
#pragma once

#include <cstdint>
#include <vector>

#include "core/adjacency.hpp"

namespace sgnn::distributed {

struct RankBlock {
  int64_t row_begin = 0;
  int64_t row_end = 0;
  Adjacency adjacency;                         // [num_rows, num_rows + num_halo], values kept when A has them
  std::vector<int32_t> halo_rows;              // global ids, sorted
  std::vector<int64_t> halo_offsets;           // [ranks + 1], per owner
  std::vector<std::vector<int32_t>> send_rows;  // [ranks], local row ids (empty for this rank itself)

  int64_t num_rows() const { return row_end - row_begin; }
  int64_t num_halo() const { return static_cast<int64_t>(halo_rows.size()); }
  int64_t halo_from(int owner) const;  // rows received from `owner`
  int64_t sent_to(int peer) const;     // rows sent to `peer`
};

struct GraphPartition {
  int64_t num_nodes = 0;
  std::vector<int64_t> boundaries;  // [ranks + 1], boundaries[0] = 0, boundaries[ranks] = num_nodes
  std::vector<RankBlock> blocks;    // [ranks]

  int num_ranks() const { return static_cast<int>(blocks.size()); }
  int owner(int64_t row) const;           // InvalidArgument outside [0, num_nodes)
  int64_t max_block_rows() const;         // the padded block of an all-gather
};

// What one rank needs of a partition: its block, every rank's row range and
// the two totals the halo plan depends on (halo_plan.hpp).
struct RankPartition {
  int rank = 0;
  int64_t num_nodes = 0;
  std::vector<int64_t> boundaries;  // [ranks + 1], as GraphPartition::boundaries
  RankBlock block;
  int64_t max_block_rows = 0;   // the largest block of any rank
  int64_t total_halo_rows = 0;  // Σ over ranks of num_halo

  int num_ranks() const { return static_cast<int>(boundaries.size()) - 1; }
  int owner(int64_t row) const;  // InvalidArgument outside [0, num_nodes)
};

// Rank `rank`'s part (its block is copied; the adjacency's tensors are
// shared). InvalidArgument when there is no such rank.
RankPartition rank_partition(const GraphPartition& partition, int rank);

// Boundaries [ranks + 1] splitting the rows of `csr` (any device) into
// `ranks` contiguous ranges of about equal nnz + rows. Ranges may be empty
// when ranks > rows. InvalidArgument when ranks < 1.
std::vector<int64_t> balanced_row_boundaries(const Csr& csr, int ranks);

// The partition of a square adjacency (any device; read on the host) for
// `ranks` ranks. InvalidArgument when ranks < 1 or A is not square.
GraphPartition partition_graph(const Adjacency& adjacency, int ranks);

}  // namespace sgnn::distributed
