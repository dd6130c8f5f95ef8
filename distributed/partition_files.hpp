// Per-rank partition files: sgnn_partition partitions a dataset once and
// writes one section file per rank (graph_io/section_file.hpp, kind
// "rank-partition"); rank r of N reads only <folder>/part-<r>-of-<N>.sgnn,
// so no process of a run holds the whole graph.
//
// A file holds rank r's RankShard (rank_shard.hpp):
//   sections  boundaries int64 [N+1]; the block's CSR: indptr int64 [rows+1],
//             indices int32 [nnz] over [local rows | halo], values float32
//             [nnz] (GCN-normalised; GAT uses the pattern); halo_rows int32
//             (global ids, sorted), halo_offsets int64 [N+1]; send_rows int32
//             (the rows each peer needs, peer after peer) with send_offsets
//             int64 [N+1]; features float32 [rows, F]; labels int32 [rows];
//             train_index, valid_index[, test_index] int32 local row ids;
//             dataset_ids int32 [rows] when the nodes were reordered
//   metadata  rank, ranks, num_nodes, max_block_rows, total_halo_rows,
//             global_train_rows, num_classes, dataset, reordering, and the
//             partition id: a hash of the partitioned graph, the task and N,
//             equal in every file of one partitioning (check_same_partition).
// Reading checks what training relies on (ranges, sorted rows and halo, the
// halo slices against the boundaries, label and split ranges) and throws
// IoError(file, 0, reason) on anything else, as on a missing, truncated or
// corrupt file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "distributed/communicator.hpp"
#include "distributed/rank_shard.hpp"
#include "graph_io/graph.hpp"

namespace sgnn::distributed {

struct PartitionFileInfo {
  std::string dataset;             // the dataset's name
  std::string reordering = "none";  // graph_io::reordering_name of the node order used
  uint64_t partition_id = 0;
};

struct RankFile {
  RankShard shard;
  PartitionFileInfo info;
};

// <folder>/part-<rank>-of-<ranks>.sgnn
std::filesystem::path rank_file_path(const std::filesystem::path& folder, int rank, int ranks);

// Partitions `graph` (prepared for GCN: gcn_graph_options(); any device;
// features, labels and train/valid splits required) into `ranks` parts and
// writes every rank's file into `folder` (created; each file atomically),
// with `info`'s dataset and reordering names. Returns the partition id.
// InvalidArgument on a graph without the task or with fewer nodes than ranks.
uint64_t write_partition_files(const std::filesystem::path& folder, const graph_io::Graph& graph, int ranks,
                               PartitionFileInfo info);

// Writes one rank's file atomically.
void write_rank_file(const std::filesystem::path& path, const RankShard& shard, const PartitionFileInfo& info);

// Reads and checks rank `rank` of `ranks`'s file in `folder`. IoError when it
// is missing (naming the part counts the folder holds instead, if any),
// unreadable, for another rank or count, or inconsistent.
RankFile read_rank_file(const std::filesystem::path& folder, int rank, int ranks);

// Collective: every rank passes the id of the files it read; throws
// InvalidArgument on every rank, naming the ranks whose ids differ, when
// they are not all equal (files of different partitionings mixed).
void check_same_partition(Communicator& communicator, uint64_t partition_id);

}  // namespace sgnn::distributed
