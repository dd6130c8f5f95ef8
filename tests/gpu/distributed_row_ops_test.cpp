// The halo exchange's row kernels on the GPU against the host backend:
// gathers with repeated and scattered rows, scatter-adds into a subset of
// rows, widths that are not multiples of a warp.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "distributed/row_ops.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

Tensor shuffled_rows(int64_t count, int64_t rows, uint64_t seed) {
  std::vector<int32_t> ids(static_cast<std::size_t>(rows));
  std::iota(ids.begin(), ids.end(), 0);
  std::mt19937_64 engine(seed);
  std::shuffle(ids.begin(), ids.end(), engine);
  ids.resize(static_cast<std::size_t>(count));
  return Tensor::from_vector(ids, {count});
}

}  // namespace

TEST_CASE("row ops on the GPU: gather_rows equals the host, every output row written") {
  for (const int64_t width : {int64_t{1}, int64_t{33}, int64_t{256}}) {
    CAPTURE(width);
    const Tensor x = random_tensor({500, width}, 71);
    const Tensor index = random_indices({1200}, 72, 0, 500, DType::Int32);  // repeats allowed
    const Tensor expected = distributed::gather_rows(x, index);
    const Tensor got = distributed::gather_rows(x.to(kGpu), index.to(kGpu));
    CHECK(got.to(Device::cpu()).to_vector<float>() == expected.to_vector<float>());
  }
  const Tensor none = distributed::gather_rows(random_tensor({4, 3}, 1, -1, 1, kGpu), Tensor::zeros({0}, DType::Int32, kGpu));
  CHECK(none.shape() == Shape({0, 3}));
}

TEST_CASE("row ops on the GPU: scatter_add_rows adds into the indexed rows only") {
  for (const int64_t width : {int64_t{1}, int64_t{47}, int64_t{100}}) {
    CAPTURE(width);
    Tensor expected = random_tensor({800, width}, 73);
    Tensor on_gpu = expected.to(kGpu);
    const Tensor index = shuffled_rows(300, 800, 74);
    const Tensor rows = random_tensor({300, width}, 75);
    distributed::scatter_add_rows(expected, index, rows);
    distributed::scatter_add_rows(on_gpu, index.to(kGpu), rows.to(kGpu));
    CHECK(on_gpu.to(Device::cpu()).to_vector<float>() == expected.to_vector<float>());
  }
}
