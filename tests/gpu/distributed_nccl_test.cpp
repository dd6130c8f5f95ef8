// Multi-GPU training over NCCL (NcclRanks, one thread per GPU) equals
// single-GPU training, and the NCCL halo exchange gives the full SpMM and its
// backward. Needs 2 GPUs and an NCCL build; otherwise each case says why it
// did not run.
#include <doctest/doctest.h>

#include <cstdio>

#include "core/device.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/nccl_ranks.hpp"
#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "tests/distributed/training_comparison.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace sgnn::testing;

namespace {

bool have_two_gpus() {
  if (!nccl_built()) {
    std::printf("skipped: this build has no NCCL (SGNN_NCCL=OFF)\n");
    return false;
  }
  if (cuda_device_count() < 2) {
    std::printf("skipped: multi-GPU NCCL test needs 2 GPUs, %d visible\n", cuda_device_count());
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("nccl: partitioned SpMM and its backward on 2 GPUs equal the full product on the host") {
  if (!have_two_gpus()) return;
  const Adjacency a = random_gcn_graph(3000, 30000, 51);
  const Tensor b = random_tensor({a.num_rows(), 33}, 52);
  const Tensor w = random_tensor({a.num_rows(), 33}, 53);
  Tensor leaf = b.clone();
  leaf.set_requires_grad(true);
  const Tensor full_c = ops::spmm(a, leaf);
  ops::sum(ops::mul(full_c, w)).backward();
  const Tensor full_db = leaf.grad();

  const GraphPartition partition = partition_graph(a, 2);
  NcclRanks ranks({0, 1});
  for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
    CAPTURE(halo_mode_name(mode));
    Tensor c = poisoned({a.num_rows(), 33}, Device::cpu());
    Tensor db = poisoned({a.num_rows(), 33}, Device::cpu());
    ranks.run([&](Communicator& communicator) {
      const RankBlock& block = partition.blocks[static_cast<std::size_t>(communicator.rank())];
      const Device device = communicator.device();
      const HaloExchange halo(partition, communicator.rank(), mode, device);
      const Adjacency local_adjacency = block.adjacency.to(device);
      Tensor local = b.narrow_rows(block.row_begin, block.row_end).to(device);
      local.set_requires_grad(true);
      const Tensor local_c = ops::spmm(local_adjacency, halo(communicator, local));
      ops::sum(ops::mul(local_c, w.narrow_rows(block.row_begin, block.row_end).to(device))).backward();
      const std::vector<float> c_rows = local_c.to_vector<float>();
      const std::vector<float> db_rows = local.grad().to_vector<float>();
      std::copy(c_rows.begin(), c_rows.end(), c.data<float>() + block.row_begin * 33);
      std::copy(db_rows.begin(), db_rows.end(), db.data<float>() + block.row_begin * 33);
    });
    CHECK(relative_error(c, full_c) < 1e-5);
    CHECK(relative_error(db, full_db) < 1e-5);
  }
}

TEST_CASE("nccl: GCN training on 2 GPUs equals single-GPU training (losses, parameters, metrics)") {
  if (!have_two_gpus()) return;
  const Adjacency a = random_gcn_graph(4000, 40000, 61);
  NcclRanks ranks({0, 1});
  for (const int64_t hidden : {int64_t{8}, int64_t{64}}) {  // A·(X·W) and (A·X)·W in the first layer
    const Task task = random_task(4000, 24, 5, 62);
    const TrainingRun reference = single_device_run(a, task, hidden, Device::cuda(0));
    for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
      CAPTURE(hidden);
      CAPTURE(halo_mode_name(mode));
      check_same_training(reference, distributed_runs(ranks, a, task, hidden, mode), 1e-4);
    }
  }
}

TEST_CASE("nccl: GAT training on 2 GPUs equals single-GPU training (losses, parameters, metrics)") {
  if (!have_two_gpus()) return;
  const Adjacency a = random_gcn_graph(3000, 30000, 63);
  const Task task = random_task(3000, 24, 5, 64);
  NcclRanks ranks({0, 1});
  const TrainingRun reference = single_device_run(a, task, 8, Device::cuda(0), "gat");
  for (HaloMode mode : {HaloMode::SendRecv, HaloMode::AllGather}) {
    CAPTURE(halo_mode_name(mode));
    check_same_training(reference, distributed_runs(ranks, a, task, 8, mode, "gat"), 1e-4);
  }
}

TEST_CASE("nccl: bad GPU lists are rejected before NCCL starts") {
  if (!nccl_built()) return;
  CHECK_THROWS_WITH_AS(NcclRanks({0, 0}), doctest::Contains("listed twice"), InvalidArgument);
  CHECK_THROWS_WITH_AS(NcclRanks({cuda_device_count()}), doctest::Contains("visible"), InvalidArgument);
}
