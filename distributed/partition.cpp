#include "distributed/partition.hpp"

#include <algorithm>

#include "distributed/local_adjacency.hpp"

namespace sgnn::distributed {

namespace {

std::size_t at(int64_t i) { return static_cast<std::size_t>(i); }

// The rank owning `row`: the last boundary <= row whose range is non-empty.
int owner_of(const std::vector<int64_t>& boundaries, int64_t row, const char* caller) {
  const int64_t num_nodes = boundaries.back();
  SGNN_CHECK(row >= 0 && row < num_nodes, caller, ": row ", row, " outside [0, ", num_nodes, ")");
  const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), row);
  return static_cast<int>(it - boundaries.begin()) - 1;
}

// Boundaries from int64 offsets: boundary k is the first row whose cumulative
// cost indptr[row] + row reaches k/ranks of the total (a monotone function of
// the row, so boundaries never decrease).
std::vector<int64_t> boundaries_from_offsets(const std::vector<int64_t>& indptr, int ranks) {
  SGNN_CHECK(ranks >= 1, "partition: the number of ranks must be at least 1, got ", ranks);
  const auto rows = static_cast<int64_t>(indptr.size()) - 1;
  const int64_t total = indptr.back() + rows;
  std::vector<int64_t> boundaries(at(ranks) + 1, rows);
  boundaries[0] = 0;
  int64_t row = 0;
  for (int k = 1; k < ranks; ++k) {
    // total·k/ranks rounded down (total < 2^48 and k < 2^15: no overflow).
    const int64_t target = total / ranks * k + total % ranks * k / ranks;
    while (row < rows && indptr[at(row)] + row < target) ++row;
    boundaries[at(k)] = row;
  }
  return boundaries;
}

// Rank `rank`'s block: its rows with columns renumbered into [local | halo].
RankBlock build_block(const HostCsr& a, const std::vector<int64_t>& boundaries, int rank,
                      std::vector<int32_t>& halo_position) {
  const int ranks = static_cast<int>(boundaries.size()) - 1;
  RankBlock block;
  block.row_begin = boundaries[at(rank)];
  block.row_end = boundaries[at(rank) + 1];
  const int64_t begin = block.row_begin;
  const int64_t end = block.row_end;
  const int64_t first_edge = a.indptr[at(begin)];
  const int64_t last_edge = a.indptr[at(end)];

  // Distinct remote columns, marked in halo_position (-2: seen) rather than
  // sorting every cross edge: a block of a large graph has tens of millions.
  constexpr int32_t kSeen = -2;
  for (int64_t k = first_edge; k < last_edge; ++k) {
    const int32_t column = a.indices[at(k)];
    if ((column < begin || column >= end) && halo_position[at(column)] != kSeen) {
      halo_position[at(column)] = kSeen;
      block.halo_rows.push_back(column);
    }
  }
  std::sort(block.halo_rows.begin(), block.halo_rows.end());
  block.halo_offsets.resize(at(ranks) + 1);
  for (int owner = 0; owner <= ranks; ++owner) {
    block.halo_offsets[at(owner)] =
        std::lower_bound(block.halo_rows.begin(), block.halo_rows.end(), boundaries[at(owner)]) -
        block.halo_rows.begin();
  }
  block.send_rows.resize(at(ranks));

  const int64_t rows = end - begin;
  for (std::size_t h = 0; h < block.halo_rows.size(); ++h) {
    halo_position[at(block.halo_rows[h])] = static_cast<int32_t>(rows + static_cast<int64_t>(h));
  }
  // Each global row is [columns < begin | local columns | columns >= end]
  // (sorted); the renumbered row is [local | halo of lower owners | halo of
  // higher owners], which is sorted again because halo ids keep global order.
  HostCsr local;
  local.num_rows = rows;
  local.num_cols = rows + block.num_halo();
  local.indptr.reserve(at(rows) + 1);
  local.indptr.push_back(0);
  local.indices.reserve(at(last_edge - first_edge));
  if (!a.values.empty()) local.values.reserve(at(last_edge - first_edge));
  const auto copy_entry = [&](int64_t k, int32_t column) {
    local.indices.push_back(column);
    if (!a.values.empty()) local.values.push_back(a.values[at(k)]);
  };
  for (int64_t row = begin; row < end; ++row) {
    const auto first = a.indices.begin() + a.indptr[at(row)];
    const auto last = a.indices.begin() + a.indptr[at(row) + 1];
    const auto local_first = std::lower_bound(first, last, begin);
    const auto local_last = std::lower_bound(local_first, last, end);
    const int64_t base = first - a.indices.begin();
    for (auto it = local_first; it != local_last; ++it) {
      copy_entry(base + (it - first), static_cast<int32_t>(*it - begin));
    }
    for (auto it = first; it != local_first; ++it) copy_entry(base + (it - first), halo_position[at(*it)]);
    for (auto it = local_last; it != last; ++it) copy_entry(base + (it - first), halo_position[at(*it)]);
    local.indptr.push_back(static_cast<int64_t>(local.indices.size()));
  }
  for (const int32_t row : block.halo_rows) halo_position[at(row)] = -1;
  block.adjacency = make_adjacency(local);
  return block;
}

}  // namespace

int64_t RankBlock::halo_from(int owner) const {
  SGNN_CHECK(owner >= 0 && at(owner) + 1 < halo_offsets.size(), "RankBlock::halo_from: no rank ", owner);
  return halo_offsets[at(owner) + 1] - halo_offsets[at(owner)];
}

int64_t RankBlock::sent_to(int peer) const {
  SGNN_CHECK(peer >= 0 && at(peer) < send_rows.size(), "RankBlock::sent_to: no rank ", peer);
  return static_cast<int64_t>(send_rows[at(peer)].size());
}

int GraphPartition::owner(int64_t row) const { return owner_of(boundaries, row, "GraphPartition::owner"); }

int RankPartition::owner(int64_t row) const { return owner_of(boundaries, row, "RankPartition::owner"); }

RankPartition rank_partition(const GraphPartition& partition, int rank) {
  SGNN_CHECK(rank >= 0 && rank < partition.num_ranks(), "rank_partition: no rank ", rank, " of ",
             partition.num_ranks());
  RankPartition part;
  part.rank = rank;
  part.num_nodes = partition.num_nodes;
  part.boundaries = partition.boundaries;
  part.block = partition.blocks[at(rank)];
  part.max_block_rows = partition.max_block_rows();
  for (const RankBlock& block : partition.blocks) part.total_halo_rows += block.num_halo();
  return part;
}

int64_t GraphPartition::max_block_rows() const {
  int64_t most = 0;
  for (const RankBlock& block : blocks) most = std::max(most, block.num_rows());
  return most;
}

std::vector<int64_t> balanced_row_boundaries(const Csr& csr, int ranks) {
  std::vector<int64_t> indptr;
  if (csr.indptr.dtype() == DType::Int64) {
    indptr = csr.indptr.to_vector<int64_t>();
  } else {
    const std::vector<int32_t> narrow = csr.indptr.to_vector<int32_t>();
    indptr.assign(narrow.begin(), narrow.end());
  }
  return boundaries_from_offsets(indptr, ranks);
}

GraphPartition partition_graph(const Adjacency& adjacency, int ranks) {
  SGNN_CHECK(ranks >= 1, "partition_graph: the number of ranks must be at least 1, got ", ranks);
  SGNN_CHECK(adjacency.num_rows() == adjacency.num_cols(), "partition_graph: the adjacency must be square, got ",
             adjacency.num_rows(), " x ", adjacency.num_cols());
  const HostCsr a = host_csr(adjacency.csr, adjacency.values);
  GraphPartition partition;
  partition.num_nodes = a.num_rows;
  partition.boundaries = boundaries_from_offsets(a.indptr, ranks);
  std::vector<int32_t> halo_position(at(a.num_rows), -1);
  for (int rank = 0; rank < ranks; ++rank) {
    partition.blocks.push_back(build_block(a, partition.boundaries, rank, halo_position));
  }
  // Rank p sends to rank q what q's halo holds from owner p, in that order.
  for (int q = 0; q < ranks; ++q) {
    const RankBlock& receiver = partition.blocks[at(q)];
    for (int p = 0; p < ranks; ++p) {
      if (p == q) continue;
      std::vector<int32_t>& sends = partition.blocks[at(p)].send_rows[at(q)];
      const int64_t owner_begin = partition.boundaries[at(p)];
      for (int64_t h = receiver.halo_offsets[at(p)]; h < receiver.halo_offsets[at(p) + 1]; ++h) {
        sends.push_back(static_cast<int32_t>(receiver.halo_rows[at(h)] - owner_begin));
      }
    }
  }
  return partition;
}

}  // namespace sgnn::distributed
