// GPU tier of the reliability checks: the CUDA NaN/Inf search against the CPU
// one, the numerics check mode on device tensors, edge_softmax on scores that
// overflow exp, a real device allocation failure that leaves the process
// usable, and the free-memory query of the memory estimate.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/memory.hpp"
#include "core/memory_estimate.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/elementwise.hpp"
#include "ops/nonfinite_check.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"
#include "training/numerics_check.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("GPU find_nonfinite matches the CPU: counts, first index and value, at many sizes") {
  std::mt19937_64 engine(5);
  for (int64_t n : {int64_t{1}, int64_t{31}, int64_t{32}, int64_t{33}, int64_t{1000}, int64_t{65537},
                    (int64_t{1} << 22) + 3}) {
    for (int planted : {0, 1, 7}) {
      CAPTURE(n);
      CAPTURE(planted);
      std::vector<float> values = random_tensor({n}, static_cast<uint64_t>(n + planted)).to_vector<float>();
      std::uniform_int_distribution<int64_t> where(0, n - 1);
      for (int k = 0; k < planted; ++k) {
        const float bad = k % 3 == 0 ? std::numeric_limits<float>::quiet_NaN()
                                     : (k % 3 == 1 ? std::numeric_limits<float>::infinity()
                                                   : -std::numeric_limits<float>::infinity());
        values[static_cast<std::size_t>(where(engine))] = bad;
      }
      const Tensor cpu = Tensor::from_vector(values, {n});
      const ops::NonfiniteReport expected = ops::find_nonfinite(cpu);
      const ops::NonfiniteReport got = ops::find_nonfinite(cpu.to(kGpu));
      CHECK(got.count == expected.count);
      CHECK(got.first_index == expected.first_index);
      if (expected.count > 0) {
        CHECK(std::isnan(got.first_value) == std::isnan(expected.first_value));
        if (!std::isnan(expected.first_value)) CHECK(got.first_value == expected.first_value);
      }
    }
  }
}

TEST_CASE("GPU check mode names the op of a NaN output") {
  Tensor a = Tensor::from_vector(std::vector<float>{1.0f, std::numeric_limits<float>::quiet_NaN()}, {2}, kGpu);
  a.set_requires_grad(true);
  const Tensor b = Tensor::full({2}, 2.0, DType::Float32, kGpu);
  training::CheckNumericsScope check(true);
  CHECK_THROWS_WITH_AS(ops::mul(a, b), doctest::Contains("op 'mul' forward"), NumericalError);
}

TEST_CASE("GPU edge_softmax stays finite on scores that overflow exp and matches the CPU") {
  const Adjacency cpu = random_graph(500, 8000, 21);
  const Adjacency gpu = cpu.to(kGpu);
  const EdgeCoordinates edges = edge_coordinates(cpu);
  for (int64_t heads : {1, 4}) {
    std::vector<float> values(static_cast<std::size_t>(cpu.nnz() * heads));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int64_t row = edges.row[i / static_cast<std::size_t>(heads)];
      values[i] = row % 3 == 0 ? 1e30f + static_cast<float>(i % 2) * 1e24f
                               : (row % 3 == 1 ? 100.0f + static_cast<float>(i % 5) : (i % 2 ? 1e30f : -1e30f));
    }
    const Shape shape = heads == 1 ? Shape{cpu.nnz()} : Shape{cpu.nnz(), heads};
    const Tensor expected = ops::edge_softmax(cpu, Tensor::from_vector(values, shape));
    Tensor scores = Tensor::from_vector(values, shape, kGpu);
    scores.set_requires_grad(true);
    const Tensor got = ops::edge_softmax(gpu, scores);
    CHECK(ops::find_nonfinite(got).all_finite());
    CHECK(relative_error(got.to(Device::cpu()), expected) < 1e-5);
    got.backward(random_tensor(shape, 3).to(kGpu));
    CHECK(ops::find_nonfinite(scores.grad()).all_finite());
  }
}

TEST_CASE("a device allocation that cannot succeed throws OutOfMemoryError and the process stays usable") {
  const int64_t live_before = memory::usage(kGpu).current_bytes;
  CHECK_THROWS_WITH_AS(Tensor::empty({int64_t{1} << 38}, DType::Float32, kGpu),  // 1 TiB
                       doctest::Contains("CUDA out of memory on cuda:0: requested"), OutOfMemoryError);
  CHECK(memory::usage(kGpu).current_bytes == live_before);
  const Tensor next = Tensor::full({1 << 20}, 3.0, DType::Float32, kGpu);
  const Tensor doubled = ops::add(next, next);
  const std::vector<float> values = doubled.to_vector<float>();
  CHECK(values.front() == 6.0f);
  CHECK(values.back() == 6.0f);
}

TEST_CASE("free_bytes reports the device's free memory, and the override replaces it") {
  const std::optional<int64_t> free_now = memory::free_bytes(kGpu);
  REQUIRE(free_now.has_value());
  CHECK(*free_now > 0);
  memory::set_free_bytes_override(12345);
  CHECK(memory::free_bytes(kGpu) == 12345);
  memory::set_free_bytes_override(std::nullopt);
  CHECK(memory::free_bytes(kGpu).has_value());
}
