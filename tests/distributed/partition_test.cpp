#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "distributed/halo_plan.hpp"
#include "distributed/local_adjacency.hpp"
#include "distributed/partition.hpp"
#include "tests/distributed/distributed_graphs.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

using Entry = std::tuple<int64_t, int64_t>;  // (global row, global column)

// Every entry of the rows [begin, end) of A with its value.
std::map<Entry, float> global_entries(const Adjacency& a, int64_t begin, int64_t end) {
  const HostCsr host = host_csr(a.csr, a.values);
  std::map<Entry, float> entries;
  for (int64_t row = begin; row < end; ++row) {
    for (int64_t k = host.indptr[static_cast<std::size_t>(row)]; k < host.indptr[static_cast<std::size_t>(row) + 1]; ++k) {
      entries[{row, host.indices[static_cast<std::size_t>(k)]}] = host.values[static_cast<std::size_t>(k)];
    }
  }
  return entries;
}

// The block's entries mapped back to global ids through [local | halo].
std::map<Entry, float> block_entries(const RankBlock& block) {
  const HostCsr host = host_csr(block.adjacency.csr, block.adjacency.values);
  std::map<Entry, float> entries;
  for (int64_t row = 0; row < host.num_rows; ++row) {
    for (int64_t k = host.indptr[static_cast<std::size_t>(row)]; k < host.indptr[static_cast<std::size_t>(row) + 1]; ++k) {
      const int64_t column = host.indices[static_cast<std::size_t>(k)];
      const int64_t global = column < block.num_rows()
                                 ? block.row_begin + column
                                 : block.halo_rows[static_cast<std::size_t>(column - block.num_rows())];
      entries[{block.row_begin + row, global}] = host.values[static_cast<std::size_t>(k)];
    }
  }
  return entries;
}

void check_partition(const Adjacency& a, const GraphPartition& partition) {
  const int ranks = partition.num_ranks();
  REQUIRE(partition.boundaries.size() == static_cast<std::size_t>(ranks) + 1);
  CHECK(partition.boundaries.front() == 0);
  CHECK(partition.boundaries.back() == a.num_rows());
  for (int r = 0; r < ranks; ++r) {
    const RankBlock& block = partition.blocks[static_cast<std::size_t>(r)];
    CAPTURE(r);
    CHECK(block.row_begin == partition.boundaries[static_cast<std::size_t>(r)]);
    CHECK(block.row_end == partition.boundaries[static_cast<std::size_t>(r) + 1]);
    CHECK_NOTHROW(block.adjacency.validate());
    CHECK(block.adjacency.num_cols() == block.num_rows() + block.num_halo());
    CHECK(block_entries(block) == global_entries(a, block.row_begin, block.row_end));
    CHECK(std::is_sorted(block.halo_rows.begin(), block.halo_rows.end()));
    for (const int32_t row : block.halo_rows) CHECK((row < block.row_begin || row >= block.row_end));
    // What rank p sends to r is exactly r's halo slice of owner p.
    for (int p = 0; p < ranks; ++p) {
      const RankBlock& owner = partition.blocks[static_cast<std::size_t>(p)];
      const std::vector<int32_t>& sent = owner.send_rows[static_cast<std::size_t>(r)];
      REQUIRE(static_cast<int64_t>(sent.size()) == (p == r ? 0 : block.halo_from(p)));
      for (std::size_t i = 0; i < sent.size(); ++i) {
        const int64_t h = block.halo_offsets[static_cast<std::size_t>(p)] + static_cast<int64_t>(i);
        CHECK(owner.row_begin + sent[i] == block.halo_rows[static_cast<std::size_t>(h)]);
        CHECK(partition.owner(block.halo_rows[static_cast<std::size_t>(h)]) == p);
      }
    }
  }
}

}  // namespace

TEST_CASE("partition: local blocks hold exactly their rows' entries, renumbered into local and halo columns") {
  const Adjacency a = random_gcn_graph(300, 900, 11);
  for (int ranks : {1, 2, 3, 5}) {
    CAPTURE(ranks);
    check_partition(a, partition_graph(a, ranks));
  }
}

TEST_CASE("partition: an R-MAT graph without values keeps its pattern") {
  const Adjacency a = rmat_graph(512, 4000, 3);
  const GraphPartition partition = partition_graph(a, 4);
  for (const RankBlock& block : partition.blocks) {
    CHECK_FALSE(block.adjacency.has_values());
    CHECK_NOTHROW(block.adjacency.validate());
  }
}

TEST_CASE("partition: ranges balance non-zeros plus rows within one row's cost") {
  const Adjacency a = rmat_graph(2000, 30000, 5);  // skewed row lengths
  const std::vector<int64_t> lengths = a.csr.row_lengths();
  int64_t total = 0;
  int64_t largest_row = 0;
  for (const int64_t length : lengths) {
    total += length + 1;
    largest_row = std::max(largest_row, length + 1);
  }
  for (int ranks : {2, 3, 7}) {
    const std::vector<int64_t> boundaries = balanced_row_boundaries(a.csr, ranks);
    CHECK(std::is_sorted(boundaries.begin(), boundaries.end()));
    for (int r = 0; r < ranks; ++r) {
      int64_t cost = 0;
      for (int64_t row = boundaries[static_cast<std::size_t>(r)]; row < boundaries[static_cast<std::size_t>(r) + 1]; ++row) {
        cost += lengths[static_cast<std::size_t>(row)] + 1;
      }
      CAPTURE(ranks);
      CAPTURE(r);
      CHECK(cost <= total / ranks + largest_row);
      CHECK(cost >= total / ranks - largest_row);
    }
  }
}

TEST_CASE("partition: more ranks than rows leaves ranks empty and still covers every row") {
  const Adjacency a = random_gcn_graph(5, 6, 2);
  const GraphPartition partition = partition_graph(a, 8);
  check_partition(a, partition);
  int empty = 0;
  for (const RankBlock& block : partition.blocks) empty += block.num_rows() == 0 ? 1 : 0;
  CHECK(empty >= 3);
  for (int64_t row = 0; row < 5; ++row) {
    const RankBlock& block = partition.blocks[static_cast<std::size_t>(partition.owner(row))];
    CHECK((row >= block.row_begin && row < block.row_end));
  }
}

TEST_CASE("partition: a graph without edges between the blocks has no halo and chooses send/recv") {
  const Adjacency a = block_diagonal_graph(4, 25, 9);
  const GraphPartition partition = partition_graph(a, 4);
  check_partition(a, partition);
  for (const RankBlock& block : partition.blocks) {
    // Balanced cuts need not fall on the block edges; when they do, nothing crosses.
    if (block.row_begin % 25 == 0 && block.row_end % 25 == 0) CHECK(block.num_halo() == 0);
  }
  const GraphPartition aligned = partition_graph(block_diagonal_graph(2, 30, 4), 1);
  CHECK(aligned.blocks[0].num_halo() == 0);
  CHECK(choose_halo_mode(aligned) == HaloMode::SendRecv);
}

TEST_CASE("halo plan: all-gather when the halo is most of the graph, send/recv when it is small") {
  // Dense random graph: every rank reads nearly every remote row.
  const GraphPartition dense = partition_graph(random_gcn_graph(200, 8000, 1), 2);
  CHECK(halo_volume(dense).sendrecv_rows >= 190);
  CHECK(choose_halo_mode(dense) == HaloMode::AllGather);
  // A ring: each rank reads two rows of its neighbours.
  std::vector<int32_t> source, target;
  for (int32_t i = 0; i < 200; ++i) {
    source.push_back(i);
    target.push_back((i + 1) % 200);
  }
  const GraphPartition ring = partition_graph(prepared_gcn_graph(200, source, target), 2);
  CHECK(halo_volume(ring).sendrecv_rows == 4);
  CHECK(choose_halo_mode(ring) == HaloMode::SendRecv);
  CHECK(exchanged_rows(ring, HaloMode::AllGather) == 2 * ring.max_block_rows());
}

TEST_CASE("halo plan: all-gather positions point at each halo row in the padded gathered blocks") {
  const GraphPartition partition = partition_graph(random_gcn_graph(97, 400, 8), 3);
  const int64_t padded = partition.max_block_rows();
  for (int r = 0; r < 3; ++r) {
    const std::vector<int32_t> positions = allgather_positions(partition, r);
    const RankBlock& block = partition.blocks[static_cast<std::size_t>(r)];
    REQUIRE(positions.size() == block.halo_rows.size());
    for (std::size_t h = 0; h < positions.size(); ++h) {
      const int64_t owner = positions[h] / padded;
      CHECK(partition.boundaries[static_cast<std::size_t>(owner)] + positions[h] % padded == block.halo_rows[h]);
    }
  }
}

TEST_CASE("partition: bad arguments are rejected with the reason") {
  const Adjacency a = random_gcn_graph(10, 20, 1);
  CHECK_THROWS_WITH_AS(partition_graph(a, 0), doctest::Contains("at least 1"), InvalidArgument);
  CHECK_THROWS_WITH_AS(balanced_row_boundaries(a.csr, -2), doctest::Contains("at least 1"), InvalidArgument);
  const GraphPartition partition = partition_graph(a, 2);
  CHECK_THROWS_WITH_AS(partition.owner(10), doctest::Contains("outside [0, 10)"), InvalidArgument);
  CHECK_THROWS_WITH_AS(allgather_positions(partition, 2), doctest::Contains("no rank 2"), InvalidArgument);
  CHECK(parse_halo_mode("auto") == std::nullopt);
  CHECK(parse_halo_mode("allgather") == HaloMode::AllGather);
  CHECK(parse_halo_mode(halo_mode_name(HaloMode::SendRecv)) == HaloMode::SendRecv);
  CHECK_THROWS_WITH_AS(parse_halo_mode("ring"), doctest::Contains("got \"ring\""), InvalidArgument);
  HostCsr broken;
  broken.num_rows = 2;
  broken.num_cols = 2;
  broken.indptr = {0, 1, 3};
  broken.indices = {0, 1};
  CHECK_THROWS_WITH_AS(make_adjacency(broken), doctest::Contains("indptr"), InvalidArgument);
  broken.indptr = {0, 1, 2};
  broken.indices = {0, 2};
  CHECK_THROWS_WITH_AS(make_adjacency(broken), doctest::Contains("column 2 outside"), InvalidArgument);
}
