// Per-rank partition files (partition_files.hpp): what a rank reads back is
// the shard it would have built from the whole graph, training from the files
// equals single-device training, and bad files fail with the file and reason.
#include <doctest/doctest.h>

#include <fstream>
#include <mutex>

#include "distributed/integer_collectives.hpp"
#include "distributed/partition_files.hpp"
#include "graph_io/fingerprint.hpp"
#include "distributed/thread_communicator.hpp"
#include "tests/distributed/training_comparison.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

graph_io::Graph task_graph(const Adjacency& a, const Task& task) {
  graph_io::Graph graph;
  graph.adjacency = a;
  graph.features = task.features;
  graph.labels = task.labels;
  graph.train_index = task.train_index;
  graph.valid_index = task.valid_index;
  graph.test_index = task.test_index;
  graph.num_nodes = a.num_rows();
  graph.num_classes = task.classes;
  return graph;
}

void check_same_tensor(const Tensor& got, const Tensor& expected) {
  REQUIRE(got.defined() == expected.defined());
  if (!got.defined()) return;
  CHECK(got.shape() == expected.shape());
  CHECK(got.dtype() == expected.dtype());
  CHECK(graph_io::hash_tensor(got) == graph_io::hash_tensor(expected));
}

// Rewrites rank `rank`'s file with `edit` applied to its shard (valid checksums, bad contents).
template <typename Edit>
void rewrite(const std::filesystem::path& folder, int rank, int ranks, Edit edit) {
  RankFile file = read_rank_file(folder, rank, ranks);
  edit(file.shard);
  write_rank_file(rank_file_path(folder, rank, ranks), file.shard, file.info);
}

}  // namespace

TEST_CASE("partition files: each rank reads back exactly its shard") {
  const Adjacency a = random_gcn_graph(150, 700, 51);
  const Task task = random_task(150, 5, 3, 52);
  const graph_io::Graph graph = task_graph(a, task);
  const TempDir folder;
  const uint64_t id = write_partition_files(folder.path(), graph, 3, {"random", "none", 0});
  CHECK(id != 0);
  const GraphPartition partition = partition_graph(a, 3);
  for (int rank = 0; rank < 3; ++rank) {
    CAPTURE(rank);
    const RankFile file = read_rank_file(folder.path(), rank, 3);
    const RankShard expected = make_rank_shard(partition, rank, task.features, task.labels, task.train_index,
                                               task.valid_index, task.test_index, task.classes);
    const RankShard& got = file.shard;
    CHECK(file.info.partition_id == id);
    CHECK(file.info.dataset == "random");
    CHECK(got.partition.boundaries == expected.partition.boundaries);
    CHECK(got.partition.max_block_rows == expected.partition.max_block_rows);
    CHECK(got.partition.total_halo_rows == expected.partition.total_halo_rows);
    CHECK(got.partition.block.halo_rows == expected.partition.block.halo_rows);
    CHECK(got.partition.block.halo_offsets == expected.partition.block.halo_offsets);
    CHECK(got.partition.block.send_rows == expected.partition.block.send_rows);
    check_same_tensor(got.partition.block.adjacency.csr.indices, expected.partition.block.adjacency.csr.indices);
    check_same_tensor(got.partition.block.adjacency.values, expected.partition.block.adjacency.values);
    check_same_tensor(got.features, expected.features);
    check_same_tensor(got.labels, expected.labels);
    check_same_tensor(got.train_index, expected.train_index);
    check_same_tensor(got.test_index, expected.test_index);
    CHECK(got.global_train_rows == expected.global_train_rows);
    CHECK(got.num_classes == 3);
    CHECK_FALSE(got.dataset_ids.defined());
  }
}

TEST_CASE("partition files: training from the files equals single-device training") {
  const Adjacency a = random_gcn_graph(120, 500, 53);
  const Task task = random_task(120, 12, 4, 54);
  const TempDir folder;
  write_partition_files(folder.path(), task_graph(a, task), 3, {"random", "none", 0});
  ThreadRanks threads(3);
  std::vector<TrainingRun> runs(3);
  threads.run([&](Communicator& communicator) {
    const RankFile file = read_rank_file(folder.path(), communicator.rank(), 3);
    check_same_partition(communicator, file.info.partition_id);
    const RankTrainingResult result = train_rank(communicator, file.shard, comparison_options(6, "gcn"));
    TrainingRun& run = runs[static_cast<std::size_t>(communicator.rank())];
    for (const RankEpoch& epoch : result.epochs) run.losses.push_back(epoch.train_loss);
    run.parameters = result.parameters;
    run.evaluation = result.final;
  });
  check_same_training(single_device_run(a, task, 6, Device::cpu()), runs, 1e-5);
}

TEST_CASE("partition files: a missing part names the partitions the folder holds") {
  const Adjacency a = random_gcn_graph(40, 100, 55);
  const graph_io::Graph graph = task_graph(a, random_task(40, 3, 2, 56));
  const TempDir folder;
  write_partition_files(folder.path(), graph, 2, {"random", "none", 0});
  CHECK_THROWS_WITH_AS(read_rank_file(folder.path(), 0, 3),
                       doctest::Contains("the folder holds a partition into 2 parts (2 files), this run has 3 ranks"),
                       IoError);
  CHECK_THROWS_WITH_AS(read_rank_file(folder.path() / "nowhere", 0, 2), doctest::Contains("run sgnn_partition --parts 2"),
                       IoError);
  std::filesystem::copy_file(rank_file_path(folder.path(), 1, 2), rank_file_path(folder.path(), 0, 2),
                             std::filesystem::copy_options::overwrite_existing);
  CHECK_THROWS_WITH_AS(read_rank_file(folder.path(), 0, 2), doctest::Contains("it is part 1 of 2, expected part 0 of 2"),
                       IoError);
  CHECK_THROWS_WITH_AS(write_partition_files(folder.path(), graph, 41, {"random", "none", 0}),
                       doctest::Contains("40 nodes cannot fill 41 parts"), InvalidArgument);
}

TEST_CASE("partition files: corrupt files and inconsistent contents fail with the file and reason") {
  const Adjacency a = random_gcn_graph(60, 300, 57);
  const graph_io::Graph graph = task_graph(a, random_task(60, 3, 2, 58));
  const TempDir folder;
  write_partition_files(folder.path(), graph, 2, {"random", "none", 0});
  const auto path = rank_file_path(folder.path(), 1, 2);
  {
    std::string bytes = read_bytes(path);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
    write_text(path, bytes);
  }
  CHECK_THROWS_WITH_AS(read_rank_file(folder.path(), 1, 2), doctest::Contains("part-1-of-2.sgnn"), IoError);
  write_partition_files(folder.path(), graph, 2, {"random", "none", 0});

  const auto expect_refused = [&](const char* reason, auto edit) {
    CAPTURE(reason);
    rewrite(folder.path(), 1, 2, edit);
    CHECK_THROWS_WITH_AS(read_rank_file(folder.path(), 1, 2), doctest::Contains(reason), IoError);
    write_partition_files(folder.path(), graph, 2, {"random", "none", 0});
  };
  expect_refused("label 7 outside [0, 2)", [](RankShard& shard) { shard.labels.data<int32_t>()[0] = 7; });
  expect_refused("train_index holds", [](RankShard& shard) { shard.train_index.data<int32_t>()[0] = 10000; });
  expect_refused("in increasing order", [](RankShard& shard) {
    auto& halo = shard.partition.block.halo_rows;
    REQUIRE(halo.size() >= 2);
    std::swap(halo[0], halo[1]);
  });
  expect_refused("halo_offsets[", [](RankShard& shard) { shard.partition.block.halo_offsets[1] += 1; });
  expect_refused("a sent row", [](RankShard& shard) {
    auto& sends = shard.partition.block.send_rows[0];
    REQUIRE_FALSE(sends.empty());
    sends[0] = 100000;
  });
  expect_refused("features has", [](RankShard& shard) { shard.features = shard.features.narrow_rows(1, shard.num_rows()).clone(); });
  expect_refused("num_classes 1", [](RankShard& shard) { shard.num_classes = 1; });
}

TEST_CASE("partition files: ranks that read different partitionings fail together") {
  ThreadRanks threads(3);
  int failures = 0;
  std::mutex mutex;
  threads.run([&](Communicator& communicator) {
    try {
      check_same_partition(communicator, communicator.rank() == 2 ? 99 : 98);
    } catch (const InvalidArgument& error) {
      const std::lock_guard<std::mutex> lock(mutex);
      CHECK(std::string(error.what()).find("rank(s) 2 differ from rank 0") != std::string::npos);
      ++failures;
    }
  });
  CHECK(failures == 3);
  threads.run([&](Communicator& communicator) { check_same_partition(communicator, 0xfedcba9876543210ull); });
}

TEST_CASE("integer collectives: int64 values travel exactly over float32 collectives") {
  ThreadRanks threads(3);
  threads.run([&](Communicator& communicator) {
    const int64_t rank = communicator.rank();
    const std::vector<std::vector<int64_t>> gathered =
        all_gather_integers(communicator, {rank, -rank - 1, (int64_t{1} << 62) + 12345 + rank, 0});
    REQUIRE(gathered.size() == 3);
    for (int64_t peer = 0; peer < 3; ++peer) {
      CHECK(gathered[static_cast<std::size_t>(peer)] ==
            std::vector<int64_t>{peer, -peer - 1, (int64_t{1} << 62) + 12345 + peer, 0});
    }
    if (rank == 1) {
      CHECK_THROWS_WITH_AS(all_gather_integers(communicator, {1, 2}), doctest::Contains("rank 0 sends 1 values"),
                           InvalidArgument);
    } else {
      CHECK_THROWS_AS(all_gather_integers(communicator, {1}), InvalidArgument);
    }
  });
}
