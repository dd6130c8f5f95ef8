// RankShard: everything one rank of a distributed run holds of the task, on
// the host: its part of the partition (rows, local adjacency, halo plan
// inputs) and its rows of the node-classification task (features, labels,
// the splits as local row ids). A process of a multi-process run builds or
// reads only its own shard (partition_files.hpp); rank_data() moves it to the
// rank's device for training.
#pragma once

#include <cstdint>

#include "distributed/partition.hpp"

namespace sgnn::distributed {

struct RankShard {
  RankPartition partition;
  Tensor features;      // [rows, F] float32
  Tensor labels;        // [rows] int32 in [0, num_classes)
  Tensor train_index;   // int32 local row ids (maybe none)
  Tensor valid_index;
  Tensor test_index;    // undefined when the task has no test split
  int64_t global_train_rows = 0;  // training rows over all ranks (> 0)
  int64_t num_classes = 0;
  Tensor dataset_ids;   // int32 [rows]: each row's node id in the dataset when the nodes were reordered, else undefined

  int64_t num_rows() const { return partition.block.num_rows(); }
};

// One rank's share on the rank's device, what the trainer reads.
struct RankData {
  Adjacency adjacency;  // the rank's block [num_rows, num_rows + num_halo]
  Tensor features;      // [num_rows, F] float32
  Tensor labels;        // [num_rows] int32
  Tensor train_index;   // int32 local row ids (maybe no rows)
  Tensor valid_index;
  Tensor test_index;    // undefined when the task has no test split
  int64_t global_train_rows = 0;
};

// Slices the global task (host or device tensors; splits: int32 global row
// ids) for `rank`, on the host. InvalidArgument on inconsistent shapes or
// dtypes, an empty training split, or no such rank.
RankShard make_rank_shard(const GraphPartition& partition, int rank, const Tensor& features, const Tensor& labels,
                          const Tensor& train_index, const Tensor& valid_index, const Tensor& test_index,
                          int64_t num_classes);

// The shard's tensors on `device` (copies; the shard stays on the host).
RankData rank_data(const RankShard& shard, Device device);

// rank_data(make_rank_shard(...), device) with the classes left unchecked.
// Pass host tensors when ranks run concurrently: copying from another GPU
// waits on that GPU's stream, where a collective may be waiting for this
// rank (a deadlock).
RankData make_rank_data(const GraphPartition& partition, int rank, const Tensor& features, const Tensor& labels,
                        const Tensor& train_index, const Tensor& valid_index, const Tensor& test_index, Device device);

}  // namespace sgnn::distributed
