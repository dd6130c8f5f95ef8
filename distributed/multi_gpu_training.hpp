// Full-graph GCN or GAT training on the GPUs of this host (NcclRanks): partition the
// prepared graph, give every GPU its share and a model replica, train
// `epochs` steps and evaluate at the end. The engine behind
// examples/train_gcn_multigpu and bench/bench_multigpu.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distributed/halo_plan.hpp"
#include "graph_io/graph.hpp"
#include "training/experiment.hpp"
#include "training/trainer.hpp"

namespace sgnn::distributed {

struct MultiGpuOptions {
  std::vector<int> devices{0, 1};  // one rank per GPU
  // A registered kind whose layers run on row partitions (gcn, gat:
  // distributed_gcn.hpp) and its hyperparameters by name (those left out
  // take the kind's general defaults; every epoch runs).
  std::string model = "gcn";
  std::map<std::string, std::string> hyperparameters;
  uint64_t seed = 0;
  std::optional<HaloMode> halo;  // unset: choose_halo_mode
  training::Precision precision = training::Precision::Fp32;  // bf16: mixed precision (training/nn/precision.hpp)
};

struct MultiGpuEpoch {
  int64_t epoch = 0;       // 1-based
  double train_loss = 0;   // global mean over the training rows
  double epoch_ms = 0;     // rank 0's wall time of the step (the step ends in a collective)
};

struct MultiGpuResult {
  std::string nccl_version;
  HaloMode halo = HaloMode::SendRecv;
  std::vector<int64_t> rank_rows, rank_nnz, rank_halo;  // per rank
  double partition_ms = 0;
  std::vector<MultiGpuEpoch> epochs;
  std::vector<int64_t> epoch_bytes;  // per epoch: Σ over ranks of Communicator::bytes_sent in the step
  training::Evaluation final;  // after the last epoch
};

// cuda:0 .. cuda:count-1.
std::vector<int> first_devices(int count);

// `graph`: a prepared GCN graph (gcn_graph_options; GAT uses its pattern) with features, labels and
// train/valid splits, on any device. on_epoch runs on rank 0's thread.
// Throws sgnn::Error when NCCL is missing or fails (see nccl_ranks.hpp).
MultiGpuResult train_gcn_multi_gpu(const graph_io::Graph& graph, const MultiGpuOptions& options,
                                   const std::function<void(const MultiGpuEpoch&)>& on_epoch = {});

}  // namespace sgnn::distributed
