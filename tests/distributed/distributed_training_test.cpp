// Distributed GCN training on simulated ranks equals single-device training:
// the same losses epoch by epoch and the same final parameters.
#include <doctest/doctest.h>

#include "distributed/thread_communicator.hpp"
#include "tests/distributed/training_comparison.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

void check_on_threads(const Adjacency& a, const Task& task, int64_t hidden, int ranks, HaloMode mode) {
  CAPTURE(ranks);
  CAPTURE(halo_mode_name(mode));
  ThreadRanks threads(ranks);
  check_same_training(single_device_run(a, task, hidden, Device::cpu()),
                      distributed_runs(threads, a, task, hidden, mode), 1e-5);
}

}  // namespace

TEST_CASE("distributed GCN: losses and parameters equal single-device training (aggregate after the weight)") {
  const Adjacency a = random_gcn_graph(120, 500, 31);
  const Task task = random_task(120, 12, 4, 32);  // hidden 6 < 12 inputs: A·(X·W) in layer 1
  check_on_threads(a, task, 6, 2, HaloMode::SendRecv);
  check_on_threads(a, task, 6, 3, HaloMode::AllGather);
}

TEST_CASE("distributed GCN: equal with aggregation first and a rank without training rows") {
  const Adjacency a = random_gcn_graph(90, 400, 33);
  Task task = random_task(90, 5, 3, 34);  // hidden 16 > 5 inputs: (A·X)·W in layer 1
  // Training rows only in the first third: the last rank of three has none.
  std::vector<int32_t> train;
  for (int32_t row = 0; row < 20; ++row) train.push_back(row);
  task.train_index = Tensor::from_vector(train, {20});
  check_on_threads(a, task, 16, 3, HaloMode::SendRecv);
  check_on_threads(a, task, 16, 4, HaloMode::AllGather);
}

TEST_CASE("distributed GCN: GAT models and bad rank data are rejected") {
  const Adjacency a = random_gcn_graph(30, 60, 35);
  const Task task = random_task(30, 4, 2, 36);
  const GraphPartition partition = partition_graph(a, 2);
  CHECK_THROWS_WITH_AS(make_rank_data(partition, 0, task.features.narrow_rows(0, 29), task.labels, task.train_index,
                                      task.valid_index, task.test_index, Device::cpu()),
                       doctest::Contains("29 feature rows"), InvalidArgument);
  CHECK_THROWS_WITH_AS(make_rank_data(partition, 2, task.features, task.labels, task.train_index, task.valid_index,
                                      task.test_index, Device::cpu()),
                       doctest::Contains("no rank 2"), InvalidArgument);
  ThreadRanks ranks(2);
  CHECK_THROWS_WITH_AS(ranks.run([&](Communicator& communicator) {
                         Generator generator(1);
                         training::GatConfig config;
                         config.in_features = 4;
                         config.classes = 2;
                         const auto model = training::make_gat(config, generator);
                         const RankData data = make_rank_data(partition, communicator.rank(), task.features,
                                                              task.labels, task.train_index, task.valid_index,
                                                              task.test_index, Device::cpu());
                         const HaloExchange halo(partition, communicator.rank(), HaloMode::SendRecv, Device::cpu());
                         (void)distributed_forward(*model, data, halo, communicator, data.features);
                       }),
                       doctest::Contains("only GCN"), InvalidArgument);
}
