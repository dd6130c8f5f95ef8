// The MPI communicator between real processes (mpirun -np 3): every operation
// against values each rank can predict, with messages cut into pieces (a
// small max_message_elements stands in for MPI's int limit), size mismatches
// failing on both sides, and GCN/GAT training over MPI equal to one device.
#include <doctest/doctest.h>

#include "distributed/halo_exchange.hpp"
#include "distributed/integer_collectives.hpp"
#include "distributed/mpi_communicator.hpp"
#include "distributed/partition_files.hpp"
#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "tests/distributed/training_comparison.hpp"
#include "graph_io/fingerprint.hpp"
#include "tests/mpi/mpi_world.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

// What rank `from` sends rank `to` in the exchange test: (from + to) % 3 rows of width 2 (some empty).
Tensor exchange_payload(int from, int to) {
  const int64_t rows = (from + to) % 3;
  std::vector<float> values;
  for (int64_t i = 0; i < rows * 2; ++i) values.push_back(static_cast<float>(from * 100 + to * 10 + i));
  return Tensor::from_vector(values, {rows, 2});
}

}  // namespace

TEST_CASE("mpi: the session knows its rank, its host's ranks and broadcasts bytes") {
  const MpiSession& world = mpi_world();
  CHECK(mpi_built());
  CHECK(world.size() >= 2);
  CHECK(world.local_size() == world.size());  // one host
  CHECK(world.local_rank() == world.rank());
  CHECK_FALSE(world.host_name().empty());
  const std::vector<uint8_t> sent = world.rank() == 1 ? std::vector<uint8_t>{7, 0, 255} : std::vector<uint8_t>{};
  CHECK(world.broadcast(sent, 1) == std::vector<uint8_t>{7, 0, 255});
  CHECK_THROWS_WITH_AS(world.broadcast({}, world.size()), doctest::Contains("no rank"), InvalidArgument);
  world.barrier();
}

TEST_CASE("mpi: exchange, all-gather, reduce-scatter and all-reduce, whole and in pieces") {
  const MpiSession& world = mpi_world();
  for (const int64_t limit : {int64_t{INT_MAX}, int64_t{3}}) {
    CAPTURE(limit);
    MpiCommunicator communicator(world, limit);
    const int rank = communicator.rank();
    const int size = communicator.size();
    std::vector<Tensor> sends, receives;
    for (int peer = 0; peer < size; ++peer) {
      sends.push_back(peer == rank ? Tensor() : exchange_payload(rank, peer));
      receives.push_back(peer == rank ? Tensor() : Tensor::zeros(exchange_payload(peer, rank).shape()));
    }
    const int64_t bytes_before = communicator.bytes_sent();
    communicator.exchange(sends, receives);
    int64_t sent_bytes = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      CHECK(receives[static_cast<std::size_t>(peer)].to_vector<float>() == exchange_payload(peer, rank).to_vector<float>());
      sent_bytes += static_cast<int64_t>(sends[static_cast<std::size_t>(peer)].nbytes());
    }
    CHECK(communicator.bytes_sent() - bytes_before == sent_bytes);

    // all_gather of 10 elements per rank: rank r sends r·1000 + i.
    std::vector<float> mine;
    for (int i = 0; i < 10; ++i) mine.push_back(static_cast<float>(rank * 1000 + i));
    const Tensor gathered = Tensor::zeros({size * 10});
    communicator.all_gather(Tensor::from_vector(mine, {10}), gathered);
    const std::vector<float> all = gathered.to_vector<float>();
    for (int peer = 0; peer < size; ++peer) {
      for (int i = 0; i < 10; ++i) CHECK(all[static_cast<std::size_t>(peer * 10 + i)] == static_cast<float>(peer * 1000 + i));
    }

    // reduce_scatter: every rank sends block b = [b + rank + i]; rank b receives Σ_r (b + r + i).
    std::vector<float> blocks;
    for (int block = 0; block < size; ++block) {
      for (int i = 0; i < 7; ++i) blocks.push_back(static_cast<float>(block + rank + i));
    }
    const Tensor scattered = Tensor::zeros({7});
    communicator.reduce_scatter_sum(Tensor::from_vector(blocks, {size * 7}), scattered);
    const float rank_sum = static_cast<float>(size * (size - 1) / 2);
    for (int i = 0; i < 7; ++i) {
      CHECK(scattered.to_vector<float>()[static_cast<std::size_t>(i)] ==
            static_cast<float>(size * (rank + i)) + rank_sum);
    }

    // all_reduce of two tensors: Σ_r (r + 1) · x.
    Tensor first = Tensor::from_vector(std::vector<float>(8, static_cast<float>(rank + 1)), {2, 4});
    Tensor second = Tensor::from_vector(std::vector<float>{static_cast<float>(rank)}, {1});
    communicator.all_reduce_sum({first, second});
    CHECK(first.to_vector<float>() == std::vector<float>(8, static_cast<float>(size * (size + 1) / 2)));
    CHECK(second.item() == doctest::Approx(rank_sum));
  }
}

TEST_CASE("mpi: mismatched sizes and wrong tensors fail with the reason on every rank") {
  MpiCommunicator communicator(mpi_world());
  const int rank = communicator.rank();
  const int size = communicator.size();
  // Every rank sends 2 elements to its successor, which expects 3: each rank sees its predecessor's mismatch.
  std::vector<Tensor> sends(static_cast<std::size_t>(size)), receives(static_cast<std::size_t>(size));
  sends[static_cast<std::size_t>((rank + 1) % size)] = Tensor::zeros({2});
  receives[static_cast<std::size_t>((rank + size - 1) % size)] = Tensor::zeros({3});
  CHECK_THROWS_WITH_AS(communicator.exchange(sends, receives), doctest::Contains("expects 3 elements from rank"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(communicator.all_gather(Tensor::zeros({2}), Tensor::zeros({5})),
                       doctest::Contains("expected"), InvalidArgument);
  CHECK_THROWS_WITH_AS(communicator.all_reduce_sum({Tensor::zeros({2}, DType::Int32)}), doctest::Contains("float32"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(MpiCommunicator(mpi_world(), 0), doctest::Contains("max_message_elements"), InvalidArgument);
  // Still usable afterwards: nothing was left in flight.
  Tensor one = Tensor::from_vector(std::vector<float>{1.0f}, {1});
  communicator.all_reduce_sum({one});
  CHECK(one.item() == doctest::Approx(size));
}

TEST_CASE("mpi: partitioned SpMM and its backward over MPI equal the full ones, both halo modes") {
  MpiCommunicator communicator(mpi_world(), 5);
  const Adjacency a = random_gcn_graph(90, 500, 71);
  const GraphPartition partition = partition_graph(a, communicator.size());
  const RankBlock& block = partition.blocks[static_cast<std::size_t>(communicator.rank())];
  const Tensor b = random_tensor({90, 4}, 72);
  const Tensor w = random_tensor({90, 4}, 73);
  Tensor full_leaf = b.clone();
  full_leaf.set_requires_grad(true);
  const Tensor full = ops::spmm(a, full_leaf);
  ops::sum(ops::mul(full, w)).backward();
  for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
    CAPTURE(halo_mode_name(mode));
    const HaloExchange halo(partition, communicator.rank(), mode, Device::cpu());
    Tensor local = b.narrow_rows(block.row_begin, block.row_end).clone();
    local.set_requires_grad(true);
    const Tensor c = ops::spmm(block.adjacency, halo(communicator, local));
    ops::sum(ops::mul(c, w.narrow_rows(block.row_begin, block.row_end).clone())).backward();
    CHECK(relative_error(c, full.detach().narrow_rows(block.row_begin, block.row_end).clone()) < 1e-6);
    CHECK(relative_error(local.grad(), full_leaf.grad().narrow_rows(block.row_begin, block.row_end).clone()) < 1e-6);
  }
}

TEST_CASE("mpi: GCN and GAT training over MPI equal single-device training") {
  MpiCommunicator communicator(mpi_world());
  const Adjacency a = random_gcn_graph(120, 500, 74);
  const Task task = random_task(120, 10, 4, 75);
  const GraphPartition partition = partition_graph(a, communicator.size());
  for (const std::string kind : {"gcn", "gat"}) {
    for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
      CAPTURE(kind);
      CAPTURE(halo_mode_name(mode));
      const TrainingRun reference = single_device_run(a, task, 6, Device::cpu(), kind);
      const TrainingRun mine = rank_run(communicator, partition, task, 6, mode, kind);
      check_same_training(reference, {mine}, 1e-5);
      // Every rank ends with the same replica.
      const std::vector<std::vector<int64_t>> hashes =
          all_gather_integers(communicator, {static_cast<int64_t>(graph_io::hash_tensor(mine.parameters[0]))});
      for (const std::vector<int64_t>& hash : hashes) CHECK(hash[0] == hashes[0][0]);
    }
  }
}

TEST_CASE("mpi: integers travel exactly and mixed partitionings are caught on every rank") {
  MpiCommunicator communicator(mpi_world());
  const int64_t big = (int64_t{1} << 53) + 1;  // not exact in a double, let alone a float
  const std::vector<std::vector<int64_t>> gathered = all_gather_integers(communicator, {big + communicator.rank(), -5});
  for (int rank = 0; rank < communicator.size(); ++rank) {
    CHECK(gathered[static_cast<std::size_t>(rank)] == std::vector<int64_t>{big + rank, -5});
  }
  CHECK_THROWS_WITH_AS(check_same_partition(communicator, communicator.rank() == 1 ? 2 : 1),
                       doctest::Contains("rank(s) 1 differ from rank 0"), InvalidArgument);
}
