// What a user sees where multi-GPU training cannot start: a build without
// NCCL, or fewer GPUs than asked for. (Training over NCCL itself is in the
// GPU tier, tests/gpu/distributed_nccl_test.cpp.)
#include <doctest/doctest.h>

#include "core/device.hpp"
#include "distributed/multi_gpu_training.hpp"
#include "distributed/nccl_ranks.hpp"

using namespace sgnn;
using namespace sgnn::distributed;

TEST_CASE("nccl ranks: without NCCL or without enough GPUs, construction fails with the reason") {
  if (!nccl_built()) {
    CHECK_THROWS_WITH_AS(NcclRanks({0, 1}), doctest::Contains("no NCCL support"), Error);
  } else if (cuda_device_count() < 2) {
    CHECK_THROWS_WITH_AS(NcclRanks({0, 1}), doctest::Contains("visible"), InvalidArgument);
  }
  CHECK_THROWS_WITH_AS(NcclRanks({}), doctest::Contains(nccl_built() ? "no GPUs given" : "no NCCL support"), Error);
}

TEST_CASE("multi-GPU training: device lists and input checks") {
  CHECK(first_devices(3) == std::vector<int>{0, 1, 2});
  CHECK_THROWS_WITH_AS(first_devices(0), doctest::Contains("at least 1"), InvalidArgument);
  graph_io::Graph empty;
  CHECK_THROWS_WITH_AS(train_gcn_multi_gpu(empty, MultiGpuOptions{}), doctest::Contains("needs features"),
                       InvalidArgument);
}
