#include "distributed/rank_shard.hpp"

namespace sgnn::distributed {

namespace {

// The rows of `block` among the global row ids `index`, as local ids (host).
Tensor local_split(const Tensor& index, const RankBlock& block, const char* name) {
  if (!index.defined()) return Tensor();
  check_dtype(index, DType::Int32, "make_rank_shard", name);
  check_dim(index, 1, "make_rank_shard", name);
  std::vector<int32_t> local;
  for (const int32_t row : index.to_vector<int32_t>()) {
    if (row >= block.row_begin && row < block.row_end) local.push_back(static_cast<int32_t>(row - block.row_begin));
  }
  return Tensor::from_vector(local, {static_cast<int64_t>(local.size())});
}

// Rows [begin, end) of `tensor` as a host tensor of its own.
Tensor host_rows(const Tensor& tensor, int64_t begin, int64_t end) {
  const Tensor rows = tensor.narrow_rows(begin, end);
  return rows.device().is_cpu() ? rows.clone() : rows.to(Device::cpu());
}

Tensor on(const Tensor& tensor, Device device) { return tensor.defined() ? tensor.to(device) : Tensor(); }

}  // namespace

RankShard make_rank_shard(const GraphPartition& partition, int rank, const Tensor& features, const Tensor& labels,
                          const Tensor& train_index, const Tensor& valid_index, const Tensor& test_index,
                          int64_t num_classes) {
  SGNN_CHECK(rank >= 0 && rank < partition.num_ranks(), "make_rank_shard: no rank ", rank, " of ",
             partition.num_ranks());
  check_dim(features, 2, "make_rank_shard", "features");
  check_dtype(features, DType::Float32, "make_rank_shard", "features");
  check_dim(labels, 1, "make_rank_shard", "labels");
  check_dtype(labels, DType::Int32, "make_rank_shard", "labels");
  SGNN_CHECK(features.size(0) == partition.num_nodes && labels.size(0) == partition.num_nodes, "make_rank_shard: ",
             features.size(0), " feature rows and ", labels.size(0), " labels for a partition of ",
             partition.num_nodes, " nodes");
  SGNN_CHECK(train_index.defined() && train_index.numel() > 0, "make_rank_shard: the training split is empty");
  RankShard shard;
  shard.partition = rank_partition(partition, rank);
  const RankBlock& block = shard.partition.block;
  shard.features = host_rows(features, block.row_begin, block.row_end);
  shard.labels = host_rows(labels, block.row_begin, block.row_end);
  shard.train_index = local_split(train_index, block, "train_index");
  shard.valid_index = local_split(valid_index, block, "valid_index");
  shard.test_index = local_split(test_index, block, "test_index");
  shard.global_train_rows = train_index.numel();
  shard.num_classes = num_classes;
  return shard;
}

RankData rank_data(const RankShard& shard, Device device) {
  RankData data;
  data.adjacency = shard.partition.block.adjacency.to(device);
  data.features = shard.features.to(device);
  data.labels = shard.labels.to(device);
  data.train_index = on(shard.train_index, device);
  data.valid_index = on(shard.valid_index, device);
  data.test_index = on(shard.test_index, device);
  data.global_train_rows = shard.global_train_rows;
  return data;
}

RankData make_rank_data(const GraphPartition& partition, int rank, const Tensor& features, const Tensor& labels,
                        const Tensor& train_index, const Tensor& valid_index, const Tensor& test_index, Device device) {
  return rank_data(make_rank_shard(partition, rank, features, labels, train_index, valid_index, test_index, 0),
                   device);
}

}  // namespace sgnn::distributed
