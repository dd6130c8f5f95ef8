// The bfloat16 CSR SpMM on the GPU: against the CPU backend (both sum in
// float and round once; the GPU fuses multiply-adds and sums split rows in
// segments: bf16::backend_gap's bound, one ulp plus the float sums' spread;
// bit for bit where neither applies: unweighted sums of unsplit rows) and
// within the float64 bound of tests/support/bf16_spmm_checks.hpp, forward
// and backward; odd widths, heads,
// split hub rows, every tile, deterministic mode and misaligned views, with
// outputs poisoned (NaN) before every GPU run.
#include <doctest/doctest.h>

#include <vector>

#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_tile.hpp"
#include "tests/support/bf16_spmm_checks.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

Tensor bf16_random(const Shape& shape, uint64_t seed) {
  return ops::cast(random_tensor(shape, seed), DType::BFloat16);
}

Tensor bf16_poisoned(const Shape& shape) { return ops::cast(poisoned(shape, kGpu), DType::BFloat16); }

// The CPU backend's bfloat16 SpMM of host b (and values).
Tensor cpu_spmm(const Adjacency& cpu, const Tensor& values, int64_t heads, int64_t features, const Tensor& b) {
  Tensor c = Tensor::empty({cpu.num_rows(), heads * features}, DType::BFloat16);
  ops::spmm_forward(ops::Cpu{}, cpu.csr, values, heads, features, b, c);
  return c;
}

// The CUDA backend into a poisoned output, b and values given on the host.
Tensor gpu_spmm(const Adjacency& gpu, const Tensor& values, int64_t heads, int64_t features, const Tensor& b) {
  Tensor c = bf16_poisoned({gpu.num_rows(), heads * features});
  ops::csr_spmm_into(gpu.csr, values.defined() ? values.to(kGpu) : Tensor(), heads, features, b.to(kGpu), c);
  return c;
}

std::vector<uint16_t> bits(const Tensor& t) {
  std::vector<uint16_t> out;
  for (const bfloat16 value : t.to(Device::cpu()).to_vector<bfloat16>()) out.push_back(value.bits);
  return out;
}

}  // namespace

TEST_CASE("GPU BF16 spmm against the CPU backend: many graphs, odd widths, heads 1 and 8, split rows") {
  uint64_t seed = 7000;
  for (const Adjacency& cpu : {random_graph(1, 1, 1), random_graph(5, 0, 3), random_graph(33, 20, 4),
                               random_graph(1000, 9000, 5), rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    const bool large = cpu.nnz() > 50000;
    const std::vector<int64_t> widths = large ? std::vector<int64_t>{1, 17, 64, 128, 256}
                                              : std::vector<int64_t>{1, 2, 3, 8, 16, 17, 24, 64, 100, 128, 256, 257, 512};
    for (const int64_t features : widths) {
      CAPTURE(cpu.nnz());
      CAPTURE(features);
      const Tensor b = bf16_random({cpu.num_cols(), features}, ++seed);
      const Tensor pattern = gpu_spmm(gpu, Tensor(), 1, features, b);
      const Tensor expected = cpu_spmm(cpu, Tensor(), 1, features, b);
      CHECK(bf16::backend_gap(cpu, Tensor(), 1, features, b, pattern, expected) <= 1.0);
      if (ops::sparse_plan(gpu.csr)->num_split_rows == 0) CHECK(bits(pattern) == bits(expected));  // same float sums
      const Tensor values = random_tensor({cpu.nnz()}, ++seed);
      CHECK(bf16::backend_gap(cpu, values, 1, features, b, gpu_spmm(gpu, values, 1, features, b),
                              cpu_spmm(cpu, values, 1, features, b)) <= 1.0);
      if (features <= 64) {
        const Tensor head_b = bf16_random({cpu.num_cols(), 8 * features}, ++seed);
        const Tensor head_values = random_tensor({cpu.nnz() * 8}, ++seed);
        CHECK(bf16::backend_gap(cpu, head_values, 8, features, head_b, gpu_spmm(gpu, head_values, 8, features, head_b),
                                cpu_spmm(cpu, head_values, 8, features, head_b)) <= 1.0);
      }
    }
  }
}

TEST_CASE("GPU BF16 spmm within u·|ref| + (n+2)e·Σ|v||b| of float64, forward and backward, through ops::spmm") {
  uint64_t seed = 8000;
  for (const Adjacency& cpu : {random_graph(33, 20, 4), rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    for (const int64_t features : {3, 64, 128, 256}) {
      CAPTURE(cpu.nnz());
      CAPTURE(features);
      const double pattern = bf16::spmm_error(gpu, 1, features, bf16::SpmmWeights::Pattern, seed += 3);
      const double weighted = bf16::spmm_error(gpu, 1, features, bf16::SpmmWeights::Float32, seed += 3);
      MESSAGE("nnz ", cpu.nnz(), " width ", features, ": worst error / bound ", pattern, " (pattern), ", weighted,
              " (float32 values)");
      CHECK(pattern <= 1.0);
      CHECK(weighted <= 1.0);
      if (features <= 64) CHECK(bf16::spmm_error(gpu, 8, features, bf16::SpmmWeights::BFloat16, seed += 3) <= 1.0);
    }
  }
}

TEST_CASE("GPU BF16 spmm: every tile gives the same bits; deterministic mode changes nothing; runs repeat bit for bit") {
  for (const Adjacency& cpu : {rmat_graph(20000, 400000, 61), hub_graph(100001, 100000, 9)}) {
    const Adjacency gpu = cpu.to(kGpu);
    REQUIRE(ops::sparse_plan(gpu.csr)->num_split_rows > 0);  // split rows go through the float partials
    for (const int64_t features : {8, 24, 64, 128, 256, 512}) {
      CAPTURE(cpu.nnz());
      CAPTURE(features);
      const Tensor b = bf16_random({cpu.num_cols(), features}, 90 + static_cast<uint64_t>(features));
      const Tensor values = random_tensor({cpu.nnz()}, 91);
      const Tensor reference = gpu_spmm(gpu, values, 1, features, b);
      CHECK(bf16::backend_gap(cpu, values, 1, features, b, reference, cpu_spmm(cpu, values, 1, features, b)) <= 1.0);
      const std::vector<std::string> tiles = ops::spmm_tile_names(features, true, DType::BFloat16);
      CHECK(tiles.front().starts_with("v8s"));  // 16-byte loads of 8 bfloat16s
      for (const std::string& tile : tiles) {
        CAPTURE(tile);
        const ops::ScopedSpmmTile forced(tile);
        CHECK(bits(gpu_spmm(gpu, values, 1, features, b)) == bits(reference));
      }
      const ops::DeterministicScope ordered(true);
      CHECK(bits(gpu_spmm(gpu, values, 1, features, b)) == bits(reference));
      CHECK(bits(gpu_spmm(gpu, values, 1, features, b)) == bits(reference));
    }
  }
}

TEST_CASE("GPU BF16 spmm on misaligned views of b and c takes the scalar path, aligned views the vector one") {
  const Adjacency cpu = rmat_graph(2000, 20000, 9);
  const Adjacency gpu = cpu.to(kGpu);
  const Tensor values = random_tensor({cpu.nnz()}, 12);
  for (const int64_t offset : {1, 3, 8}) {  // 2 and 6 bytes: scalar; 16 bytes: 16-byte loads again
    for (const int64_t features : {8, 64}) {
      CAPTURE(offset);
      CAPTURE(features);
      const int64_t count = cpu.num_cols() * features;
      const Tensor storage = bf16_random({count + offset}, 13);
      const Tensor b = storage.narrow_rows(offset, count + offset).view({cpu.num_cols(), features});
      const Tensor expected = cpu_spmm(cpu, values, 1, features, b);
      const Tensor b_gpu = storage.to(kGpu).narrow_rows(offset, count + offset).view({cpu.num_cols(), features});
      Tensor c = bf16_poisoned({cpu.num_rows(), features});
      ops::csr_spmm_into(gpu.csr, values.to(kGpu), 1, features, b_gpu, c);
      CHECK(bf16::backend_gap(cpu, values, 1, features, b, c, expected) <= 1.0);
      const int64_t outputs = cpu.num_rows() * features;
      Tensor c_storage = bf16_poisoned({outputs + offset});
      Tensor c_view = c_storage.narrow_rows(offset, outputs + offset).view({cpu.num_rows(), features});
      ops::csr_spmm_into(gpu.csr, values.to(kGpu), 1, features, b_gpu, c_view);
      CHECK(bf16::backend_gap(cpu, values, 1, features, b, c_view, expected) <= 1.0);
      CHECK(bits(c_view) == bits(c));
    }
  }
}

TEST_CASE("GPU BF16 spmm keeps its tile choices apart from float32's") {
  const Adjacency gpu = rmat_graph(20000, 400000, 14, kGpu);
  const Tensor b = bf16_random({gpu.num_cols(), 64}, 15).to(kGpu);
  (void)ops::spmm(gpu, b);
  (void)ops::spmm(gpu, ops::cast(b, DType::Float32));
  const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
  REQUIRE(choices.contains("spmm:bf16:h1:f64"));
  REQUIRE(choices.contains("spmm:h1:f64"));
  CHECK(choices.at("spmm:bf16:h1:f64").starts_with("v8"));
  CHECK(choices.at("spmm:h1:f64").starts_with("v4"));
}
