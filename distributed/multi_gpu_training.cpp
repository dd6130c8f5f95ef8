#include "distributed/multi_gpu_training.hpp"

#include <chrono>
#include <numeric>

#include "core/memory.hpp"
#include "distributed/distributed_gcn.hpp"
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
  SGNN_CHECK(options.epochs >= 1, "train_gcn_multi_gpu: epochs must be at least 1, got ", options.epochs);
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
  training::GcnConfig config;
  config.in_features = graph.features.size(1);
  config.classes = graph.num_classes;
  config.hidden = options.hidden;
  config.layers = options.layers;
  config.dropout = options.dropout;
  // [rank][epoch]; each rank thread writes its own row only.
  std::vector<std::vector<int64_t>> bytes(static_cast<std::size_t>(ranks),
                                          std::vector<int64_t>(static_cast<std::size_t>(options.epochs), 0));
  nccl.run([&](Communicator& communicator) {
    const int rank = communicator.rank();
    const Device device = communicator.device();
    // Same seed everywhere: equal initial weights. Dropout masks then differ per rank (distributed_gcn.hpp).
    Generator generator(options.seed);
    const auto model = training::make_gcn(config, generator);
    model->to(device);
    ops::AdamHyperparameters adam;
    adam.learning_rate = options.learning_rate;
    training::Adam optimizer(model->parameter_groups(options.weight_decay), adam);
    const RankData data = make_rank_data(partition, rank, features, labels, train_index, valid_index, test_index,
                                         device);
    const HaloExchange halo(partition, rank, result.halo, device);
    DistributedTrainer trainer(*model, optimizer, data, halo, communicator);
    memory::synchronize(device);
    for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
      const int64_t bytes_before = communicator.bytes_sent();
      const Clock::time_point start = Clock::now();
      const double loss = trainer.train_step();  // ends with item(): the step is complete here
      MultiGpuEpoch record{epoch, loss, milliseconds_since(start)};
      bytes[static_cast<std::size_t>(rank)][static_cast<std::size_t>(epoch - 1)] =
          communicator.bytes_sent() - bytes_before;
      if (rank == 0) {
        result.epochs.push_back(record);
        if (on_epoch) on_epoch(record);
      }
    }
    const training::Evaluation evaluation = trainer.evaluate();
    if (rank == 0) result.final = evaluation;
  });
  for (std::size_t epoch = 0; epoch < static_cast<std::size_t>(options.epochs); ++epoch) {
    int64_t total = 0;
    for (const std::vector<int64_t>& rank_bytes : bytes) total += rank_bytes[epoch];
    result.epoch_bytes.push_back(total);
  }
  return result;
}

}  // namespace sgnn::distributed
