// Distributed GCN and GAT training on simulated ranks equals single-device
// training: the same losses epoch by epoch and the same final parameters.
#include <doctest/doctest.h>

#include <random>

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

TEST_CASE("distributed GAT: losses and parameters equal single-device training") {
  const Adjacency a = random_gcn_graph(100, 450, 37);
  const Task task = random_task(100, 6, 3, 38);
  for (const auto& [ranks, mode] : {std::pair{2, HaloMode::SendRecv}, std::pair{3, HaloMode::AllGather}}) {
    CAPTURE(ranks);
    ThreadRanks threads(ranks);
    check_same_training(single_device_run(a, task, 4, Device::cpu(), "gat"),
                        distributed_runs(threads, a, task, 4, mode, "gat"), 1e-5);
  }
}

// bf16: the halo rows travel as float32 and the weight gradients are float32
// sums, so only the order of a row's sum differs from one device (the rank's
// local column order), which moves a bfloat16 rounding now and then.
TEST_CASE("distributed bf16 GCN and GAT: close to single-device bf16 training, float32 master weights") {
  const Adjacency a = random_gcn_graph(100, 450, 39);
  const Task task = random_task(100, 6, 3, 40);
  for (const std::string kind : {"gcn", "gat"}) {
    CAPTURE(kind);
    ThreadRanks threads(2);
    const TrainingRun reference = single_device_run(a, task, 4, Device::cpu(), kind, training::Precision::Bf16);
    const std::vector<TrainingRun> runs = distributed_runs(threads, a, task, 4, HaloMode::SendRecv, kind,
                                                           training::Precision::Bf16);
    for (const Tensor& parameter : runs.front().parameters) CHECK(parameter.dtype() == DType::Float32);
    check_same_training(reference, runs, 2e-2);
  }
}

TEST_CASE("distributed GAT: the GCN-normalised graph of a partition has GAT's pattern") {
  // Partition files hold the GCN graph; GAT reads only its pattern, which must be what gat_graph_options() prepares.
  std::mt19937_64 engine(39);
  std::uniform_int_distribution<int32_t> node(0, 79);
  graph_io::EdgeList edges;
  edges.num_nodes = 80;
  std::vector<int32_t> source, target;
  for (int k = 0; k < 300; ++k) {
    source.push_back(node(engine));
    target.push_back(node(engine));
  }
  edges.source = Tensor::from_vector(source, {300});
  edges.target = Tensor::from_vector(target, {300});
  const Adjacency gcn = graph_io::prepare_adjacency(edges, graph_io::gcn_graph_options().prepare);
  const Adjacency gat = graph_io::prepare_adjacency(edges, graph_io::gat_graph_options().prepare);
  CHECK(gcn.csr.indptr.to_vector<int32_t>() == gat.csr.indptr.to_vector<int32_t>());
  CHECK(gcn.csr.indices.to_vector<int32_t>() == gat.csr.indices.to_vector<int32_t>());
}

TEST_CASE("distributed training: bad rank data and shards of another run are rejected") {
  const Adjacency a = random_gcn_graph(30, 60, 35);
  const Task task = random_task(30, 4, 2, 36);
  const GraphPartition partition = partition_graph(a, 2);
  CHECK_THROWS_WITH_AS(make_rank_data(partition, 0, task.features.narrow_rows(0, 29), task.labels, task.train_index,
                                      task.valid_index, task.test_index, Device::cpu()),
                       doctest::Contains("29 feature rows"), InvalidArgument);
  CHECK_THROWS_WITH_AS(make_rank_data(partition, 2, task.features, task.labels, task.train_index, task.valid_index,
                                      task.test_index, Device::cpu()),
                       doctest::Contains("no rank 2"), InvalidArgument);
  const RankShard shard_of_rank_0 = make_rank_shard(partition, 0, task.features, task.labels, task.train_index,
                                                    task.valid_index, task.test_index, task.classes);
  ThreadRanks ranks(2);
  CHECK_THROWS_WITH_AS(ranks.run([&](Communicator& communicator) {
                         (void)train_rank(communicator, shard_of_rank_0, comparison_options(4, "gcn"));
                       }),
                       doctest::Contains("the shard of rank 0 of 2 on the communicator of rank 1"), InvalidArgument);
}

TEST_CASE("distributed training refuses a model whose layers row partitions cannot run, naming the layer") {
  const Adjacency a = random_gcn_graph(30, 60, 35);
  const Task task = random_task(30, 4, 2, 36);
  const GraphPartition partition = partition_graph(a, 1);
  const RankShard shard = make_rank_shard(partition, 0, task.features, task.labels, task.train_index,
                                          task.valid_index, task.test_index, task.classes);
  ThreadRanks one(1);
  for (const auto& [kind, expected] : {std::pair<const char*, const char*>{"sgc", "cannot run layer 0 of the sgc"},
                                        {"appnp", "cannot run layer 5 of the appnp"}}) {
    CAPTURE(kind);
    RankTrainingOptions options;
    options.model = kind;
    CHECK_THROWS_WITH_AS(one.run([&](Communicator& communicator) { (void)train_rank(communicator, shard, options); }),
                         doctest::Contains(expected), InvalidArgument);
  }
}
