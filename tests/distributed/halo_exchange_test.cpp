// The halo exchange on simulated ranks (threads on the host, ThreadRanks):
// the partitioned SpMM and its backward equal the full ones, in both modes.
#include <doctest/doctest.h>

#include <atomic>

#include "distributed/halo_exchange.hpp"
#include "distributed/row_ops.hpp"
#include "distributed/thread_communicator.hpp"
#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "tests/distributed/distributed_graphs.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

struct SpmmResult {
  Tensor c;   // [N, F] A·B
  Tensor db;  // [N, F] gradient of Σ W ⊙ (A·B) in B, i.e. Aᵀ·W
};

SpmmResult full_spmm(const Adjacency& a, const Tensor& b, const Tensor& w) {
  Tensor leaf = b.clone();
  leaf.set_requires_grad(true);
  const Tensor c = ops::spmm(a, leaf);
  ops::sum(ops::mul(c, w)).backward();
  return {c.detach(), leaf.grad()};
}

// Each simulated rank: exchange its rows of B, local SpMM, backward of
// Σ W_local ⊙ C_local; the ranks' rows are put back together in order.
SpmmResult partitioned_spmm(const GraphPartition& partition, HaloMode mode, const Tensor& b, const Tensor& w) {
  const int64_t width = b.size(1);
  SpmmResult result{Tensor::zeros({partition.num_nodes, width}), Tensor::zeros({partition.num_nodes, width})};
  ThreadRanks ranks(partition.num_ranks());
  ranks.run([&](Communicator& communicator) {
    const RankBlock& block = partition.blocks[static_cast<std::size_t>(communicator.rank())];
    const HaloExchange halo(partition, communicator.rank(), mode, Device::cpu());
    Tensor local = b.narrow_rows(block.row_begin, block.row_end).clone();
    local.set_requires_grad(true);
    const Tensor c = ops::spmm(block.adjacency, halo(communicator, local));
    ops::sum(ops::mul(c, w.narrow_rows(block.row_begin, block.row_end).clone())).backward();
    std::copy_n(c.data<float>(), c.numel(), result.c.data<float>() + block.row_begin * width);
    std::copy_n(local.grad().data<float>(), c.numel(), result.db.data<float>() + block.row_begin * width);
  });
  return result;
}

void check_partitioned_spmm(const Adjacency& a, int ranks, HaloMode mode, uint64_t seed) {
  const Tensor b = random_tensor({a.num_rows(), 7}, seed);
  const Tensor w = random_tensor({a.num_rows(), 7}, seed + 1);
  const SpmmResult full = full_spmm(a, b, w);
  const SpmmResult parts = partitioned_spmm(partition_graph(a, ranks), mode, b, w);
  CAPTURE(ranks);
  CAPTURE(halo_mode_name(mode));
  CHECK(relative_error(parts.c, full.c) < 1e-6);
  CHECK(relative_error(parts.db, full.db) < 1e-6);
}

}  // namespace

TEST_CASE("halo exchange: partitioned SpMM and its backward equal the full ones (send/recv and all-gather)") {
  const Adjacency a = random_gcn_graph(150, 600, 21);
  for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
    for (int ranks : {1, 2, 3, 4}) check_partitioned_spmm(a, ranks, mode, 100 + static_cast<uint64_t>(ranks));
  }
}

TEST_CASE("halo exchange: a power-law graph whose hub rows are read by every rank") {
  const Adjacency a = rmat_graph(400, 5000, 13);
  check_partitioned_spmm(a, 3, HaloMode::SendRecv, 5);
  check_partitioned_spmm(a, 3, HaloMode::AllGather, 6);
}

TEST_CASE("halo exchange: empty ranks (more ranks than rows) and a graph without cross edges") {
  const Adjacency tiny = random_gcn_graph(5, 8, 3);
  check_partitioned_spmm(tiny, 8, HaloMode::SendRecv, 7);
  check_partitioned_spmm(tiny, 8, HaloMode::AllGather, 8);
  const Adjacency blocks = block_diagonal_graph(3, 20, 2);
  check_partitioned_spmm(blocks, 3, HaloMode::SendRecv, 9);
}

TEST_CASE("halo exchange: the backward sums the gradients of a row sent to several ranks") {
  // A star: every node reads node 0, so rank 0 sends row 0 to every other rank.
  std::vector<int32_t> source, target;
  for (int32_t i = 1; i < 40; ++i) {
    source.push_back(0);
    target.push_back(i);
  }
  check_partitioned_spmm(prepared_gcn_graph(40, source, target), 4, HaloMode::SendRecv, 11);
  check_partitioned_spmm(prepared_gcn_graph(40, source, target), 4, HaloMode::AllGather, 12);
}

TEST_CASE("halo exchange: wrong inputs are rejected, and a failing rank releases the others") {
  const Adjacency a = random_gcn_graph(30, 60, 4);
  const GraphPartition partition = partition_graph(a, 2);
  ThreadRanks ranks(2);
  CHECK_THROWS_WITH_AS(ranks.run([&](Communicator& communicator) {
                         const HaloExchange halo(partition, communicator.rank(), HaloMode::SendRecv, Device::cpu());
                         (void)halo(communicator, Tensor::zeros({halo.num_rows() + 1, 3}));
                       }),
                       doctest::Contains("owns"), InvalidArgument);
  // Rank 1 fails before the collective; rank 0 must not wait forever.
  std::atomic<int> released{0};
  CHECK_THROWS_WITH_AS(ranks.run([&](Communicator& communicator) {
                         if (communicator.rank() == 1) throw InvalidArgument("planted failure");
                         try {
                           communicator.all_reduce_sum({Tensor::zeros({4})});
                         } catch (const Error&) {
                           ++released;
                           throw;
                         }
                       }),
                       doctest::Contains("planted failure"), InvalidArgument);
  CHECK(released == 1);
  const HaloExchange halo(partition, 0, HaloMode::SendRecv, Device::cpu());
  ThreadRanks three(3);
  CHECK_THROWS_WITH_AS(three.run([&](Communicator& communicator) {
                         (void)halo(communicator, Tensor::zeros({halo.num_rows(), 3}));
                       }),
                       doctest::Contains("communicator of rank"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ThreadRanks(0), doctest::Contains("at least 1"), InvalidArgument);
}

TEST_CASE("row ops: gather and scatter-add rows, with range and repeat checks") {
  const Tensor x = Tensor::from_vector(std::vector<float>{0, 1, 10, 11, 20, 21}, {3, 2});
  const Tensor index = Tensor::from_vector(std::vector<int32_t>{2, 0}, {2});
  CHECK(gather_rows(x, index).to_vector<float>() == std::vector<float>{20, 21, 0, 1});
  Tensor target = x.clone();
  scatter_add_rows(target, index, Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}));
  CHECK(target.to_vector<float>() == std::vector<float>{3, 5, 10, 11, 21, 23});
  const Tensor out_of_range = Tensor::from_vector(std::vector<int32_t>{3}, {1});
  CHECK_THROWS_WITH_AS(gather_rows(x, out_of_range), doctest::Contains("index[0] = 3 outside [0, 3)"), InvalidArgument);
  const Tensor repeated = Tensor::from_vector(std::vector<int32_t>{1, 1}, {2});
  CHECK_THROWS_WITH_AS(scatter_add_rows(target, repeated, Tensor::zeros({2, 2})), doctest::Contains("repeats row 1"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(scatter_add_rows(target, index, Tensor::zeros({2, 3})), doctest::Contains("rows must be [2, 2]"),
                       InvalidArgument);
}
