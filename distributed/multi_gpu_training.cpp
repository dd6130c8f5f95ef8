#include "distributed/multi_gpu_training.hpp"

#include <chrono>
#include <numeric>

#include "core/memory.hpp"
#include "distributed/rank_training.hpp"
#include "distributed/nccl_ranks.hpp"

namespace sgnn::distributed {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

std::vector<int> first_devices(int count) {
  SGNN_CHECK(count >= 1, "first_devices: count must be at least 1, got ", count);
  std::vector<int> devices(static_cast<std::size_t>(count));
  std::iota(devices.begin(), devices.end(), 0);
  return devices;
}

MultiGpuResult train_gcn_multi_gpu(const graph_io::Graph& graph, const MultiGpuOptions& options,
                                   const std::function<void(const MultiGpuEpoch&)>& on_epoch) {
  SGNN_CHECK(graph.features.defined() && graph.labels.defined() && graph.train_index.defined() &&
                 graph.valid_index.defined(),
             "train_gcn_multi_gpu: the graph needs features, labels and train/valid splits");
  const training::ModelEntry& entry = training::model_entry(options.model);
  const int64_t epochs =
      training::training_settings(training::resolve_hyperparameters(entry, "", options.hyperparameters)).epochs;
  const int ranks = static_cast<int>(options.devices.size());
  SGNN_CHECK(graph.num_nodes >= ranks, "train_gcn_multi_gpu: ", graph.num_nodes, " nodes cannot fill ", ranks,
             " GPUs");
  MultiGpuResult result;
  const Clock::time_point partition_start = Clock::now();
  const GraphPartition partition = partition_graph(graph.adjacency, ranks);
  result.partition_ms = milliseconds_since(partition_start);
  result.halo = options.halo.value_or(choose_halo_mode(partition));
  for (const RankBlock& block : partition.blocks) {
    result.rank_rows.push_back(block.num_rows());
    result.rank_nnz.push_back(block.adjacency.nnz());
    result.rank_halo.push_back(block.num_halo());
  }

  // Host copies: a rank copying from another GPU would wait on that GPU's
  // stream, which may already hold a collective waiting for this rank.
  const auto on_host = [](const Tensor& tensor) { return tensor.defined() ? tensor.to(Device::cpu()) : Tensor(); };
  const Tensor features = on_host(graph.features);
  const Tensor labels = on_host(graph.labels);
  const Tensor train_index = on_host(graph.train_index);
  const Tensor valid_index = on_host(graph.valid_index);
  const Tensor test_index = on_host(graph.test_index);

  NcclRanks nccl(options.devices);
  result.nccl_version = nccl.nccl_version();
  RankTrainingOptions training;
  training.model = options.model;
  training.hyperparameters = options.hyperparameters;
  training.seed = options.seed;
  training.halo = result.halo;
  training.precision = options.precision;
  training.row_normalize_features = false;  // the caller's features as given
  // [rank][epoch]; each rank thread writes its own row only.
  std::vector<std::vector<int64_t>> bytes(static_cast<std::size_t>(ranks),
                                          std::vector<int64_t>(static_cast<std::size_t>(epochs), 0));
  nccl.run([&](Communicator& communicator) {
    const int rank = communicator.rank();
    const RankShard shard = make_rank_shard(partition, rank, features, labels, train_index, valid_index, test_index,
                                            graph.num_classes);
    const RankTrainingResult trained = train_rank(communicator, shard, training, [&](const RankEpoch& epoch) {
      bytes[static_cast<std::size_t>(rank)][static_cast<std::size_t>(epoch.epoch - 1)] = epoch.bytes_sent;
      if (rank == 0) {
        const MultiGpuEpoch record{epoch.epoch, epoch.train_loss, epoch.epoch_ms};
        result.epochs.push_back(record);
        if (on_epoch) on_epoch(record);
      }
    });
    if (rank == 0) result.final = trained.final;
  });
  for (std::size_t epoch = 0; epoch < static_cast<std::size_t>(epochs); ++epoch) {
    int64_t total = 0;
    for (const std::vector<int64_t>& rank_bytes : bytes) total += rank_bytes[epoch];
    result.epoch_bytes.push_back(total);
  }
  return result;
}

}  // namespace sgnn::distributed
