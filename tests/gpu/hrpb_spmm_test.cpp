#include <doctest/doctest.h>

#include <bit>
#include <vector>

#include "graph_io/hrpb_builder.hpp"
#include "ops/cast.hpp"
#include "ops/spmm_hrpb.hpp"
#include "ops/spmm_hrpb_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/hrpb_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// TF32 keeps 10 mantissa bits: ~5e-4 relative per product, averaged over a row.
constexpr double kTf32Tolerance = 2e-3;

graph_io::HrpbOptions options_for(bool split, bool deterministic) {
  graph_io::HrpbOptions options;
  options.load_balance = split;
  options.concurrent_blocks = 4;  // few slots: heavy panels get split
  options.deterministic = deterministic;
  return options;
}

Tensor gpu_spmm(const Hrpb& hrpb_on_gpu, const Tensor& b) {
  Tensor c = poisoned({hrpb_on_gpu.num_rows, b.size(1)}, kGpu);
  ops::spmm_hrpb_forward(ops::Cuda{}, hrpb_on_gpu, b.to(kGpu), c);
  return c;
}

// Random values in [-1, 1) that bfloat16 holds exactly, as float32 on the host
// (for the float64 reference and its bound); ops::cast of it is the BF16 operand.
Tensor bf16_exact_random(const Shape& shape, uint64_t seed) {
  return ops::cast(ops::cast(random_tensor(shape, seed), DType::BFloat16), DType::Float32);
}

Tensor poisoned_bf16(const Shape& shape) { return ops::cast(poisoned(shape, kGpu), DType::BFloat16); }

// The BF16 kernel's C for a host float32 b holding bfloat16 values, into a poisoned output.
Tensor gpu_spmm_bf16(const Hrpb& hrpb_on_gpu, const Tensor& b,
                     ops::HrpbRowStaging staging = ops::HrpbRowStaging::BulkCopies) {
  Tensor c = poisoned_bf16({hrpb_on_gpu.num_rows, b.size(1)});
  ops::spmm_hrpb_bf16_forward(ops::Cuda{}, hrpb_on_gpu, ops::cast(b.to(kGpu), DType::BFloat16), c, staging);
  return c;
}

}  // namespace

TEST_CASE("GPU HRPB SpMM matches float64 within TF32 tolerance: all widths, graphs, split and deterministic modes") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    for (const bool split : {false, true}) {
      for (const bool deterministic : {false, true}) {
        if (!split && deterministic) continue;
        CAPTURE(split);
        CAPTURE(deterministic);
        const Hrpb h = graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu),
                                            options_for(split, deterministic));
        for (const int64_t width : {1, 3, 8, 12, 16, 17, 32, 40, 64, 100, 128, 200, 257, 384}) {
          CAPTURE(width);
          const Tensor b = random_tensor({graph.adjacency.num_cols(), width}, 100 + static_cast<uint64_t>(width));
          const Tensor c = gpu_spmm(h, b);
          CHECK(relative_error(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b)) < kTf32Tolerance);
        }
      }
    }
  }
}

TEST_CASE("GPU HRPB SpMM on misaligned B and C views: padded B rows and element-wise stores") {
  // Rows start one float into their storage (moved to the GPU whole, then
  // viewed there): neither bulk row copies of B nor vector stores of C may
  // be used. Widths cover 1, 2, 4 and 8 n-tiles per warp.
  auto misaligned = [](const Tensor& storage, int64_t rows, int64_t width) {
    return storage.narrow_rows(1, rows * width + 1).view({rows, width});
  };
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const Hrpb h =
      graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu), options_for(false, false));
  const int64_t rows = graph.adjacency.num_rows(), cols = graph.adjacency.num_cols();
  for (const int64_t width : {8, 16, 64, 128}) {
    CAPTURE(width);
    const Tensor b_storage = random_tensor({cols * width + 1}, 300 + static_cast<uint64_t>(width));
    const std::vector<double> expected =
        reference_spmm(graph.adjacency.csr, graph.adjacency.values, misaligned(b_storage, cols, width));
    const Tensor b_gpu = misaligned(b_storage.to(kGpu), cols, width);
    Tensor c_aligned = poisoned({rows, width}, kGpu);
    ops::spmm_hrpb_forward(ops::Cuda{}, h, b_gpu, c_aligned);
    CHECK(relative_error(c_aligned, expected) < kTf32Tolerance);
    Tensor c_storage = poisoned({rows * width + 1}, kGpu);
    Tensor c_view = misaligned(c_storage, rows, width);
    ops::spmm_hrpb_forward(ops::Cuda{}, h, b_gpu, c_view);
    CHECK(relative_error(c_view, expected) < kTf32Tolerance);
  }
}

TEST_CASE("GPU HRPB SpMM with split panels: the hub row is split and the deterministic mode is bitwise stable") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    if (graph.name != "a hub row of 3000 columns") continue;
    const Hrpb h = graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu),
                                        options_for(true, true));
    CHECK(h.schedule.num_split_panels >= 1);
    const Tensor b = random_tensor({graph.adjacency.num_cols(), 64}, 7);
    CHECK(gpu_spmm(h, b).to_vector<float>() == gpu_spmm(h, b).to_vector<float>());
  }
}

TEST_CASE("GPU spmm_hrpb forward and backward through autograd on the device") {
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency.to(kGpu), {});
  Tensor b = random_tensor({graph.adjacency.num_cols(), 64}, 8, -1.0, 1.0, kGpu).set_requires_grad(true);
  const Tensor c = ops::spmm_hrpb(h, b);
  CHECK(c.device() == kGpu);
  CHECK(relative_error(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b.detach().to(Device::cpu()))) <
        kTf32Tolerance);
  const Tensor grad_c = random_tensor(c.shape(), 9, -1.0, 1.0, kGpu);
  c.backward(grad_c);
  CHECK(relative_error(b.grad(), reference_spmm(graph.adjacency.transpose, graph.adjacency.transpose_values,
                                                grad_c.to(Device::cpu()))) < kTf32Tolerance);
  CHECK_THROWS_AS(ops::spmm_hrpb(h, Tensor::zeros({graph.adjacency.num_cols(), 4})), InvalidArgument);
  CHECK(ops::spmm_hrpb_concurrent_blocks(kGpu, 128) > 0);
}

TEST_CASE("GPU HRPB BF16 SpMM within the stated bound of float64: all widths, graphs, split and deterministic modes, both row stagings") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    for (const bool split : {false, true}) {
      for (const bool deterministic : {false, true}) {
        if (!split && deterministic) continue;
        CAPTURE(split);
        CAPTURE(deterministic);
        const Hrpb h = graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu),
                                            options_for(split, deterministic));
        for (const int64_t width : {1, 3, 8, 12, 16, 17, 24, 32, 40, 64, 72, 100, 128, 200, 256, 257, 384}) {
          CAPTURE(width);
          const Tensor b = bf16_exact_random({graph.adjacency.num_cols(), width}, 500 + static_cast<uint64_t>(width));
          const Tensor c = gpu_spmm_bf16(h, b);
          REQUIRE(c.dtype() == DType::BFloat16);
          CHECK(worst_bound_ratio(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b),
                                  bf16_spmm_bound(graph.adjacency.csr, graph.adjacency.values, b)) <= 1.0);
          // Rows staged by 16-byte copies where bulk copies would run (from width 65): the same sums, the same bits.
          CHECK(to_double(gpu_spmm_bf16(h, b, ops::HrpbRowStaging::Copies)) == to_double(c));
        }
      }
    }
  }
}

TEST_CASE("GPU HRPB BF16 SpMM on misaligned B and C views: padded B rows and element-wise stores") {
  // Rows start one bfloat16 (2 bytes) into their storage: neither 16-byte
  // copies of B nor 16-byte stores of C may be used.
  auto misaligned = [](const Tensor& storage, int64_t rows, int64_t width) {
    return storage.narrow_rows(1, rows * width + 1).view({rows, width});
  };
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const Hrpb h =
      graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu), options_for(false, false));
  const int64_t rows = graph.adjacency.num_rows(), cols = graph.adjacency.num_cols();
  for (const int64_t width : {8, 16, 64, 128, 264}) {
    CAPTURE(width);
    const Tensor b_storage = bf16_exact_random({cols * width + 1}, 600 + static_cast<uint64_t>(width));
    const Tensor b = misaligned(b_storage, cols, width);
    const std::vector<double> expected = reference_spmm(graph.adjacency.csr, graph.adjacency.values, b);
    const std::vector<double> bound = bf16_spmm_bound(graph.adjacency.csr, graph.adjacency.values, b);
    const Tensor b_gpu = misaligned(ops::cast(b_storage.to(kGpu), DType::BFloat16), cols, width);
    Tensor c_aligned = poisoned_bf16({rows, width});
    ops::spmm_hrpb_bf16_forward(ops::Cuda{}, h, b_gpu, c_aligned);
    CHECK(worst_bound_ratio(c_aligned, expected, bound) <= 1.0);
    Tensor c_storage = poisoned_bf16({rows * width + 1});
    Tensor c_view = misaligned(c_storage, rows, width);
    ops::spmm_hrpb_bf16_forward(ops::Cuda{}, h, b_gpu, c_view);
    CHECK(worst_bound_ratio(c_view, expected, bound) <= 1.0);
    CHECK(to_double(c_view) == to_double(c_aligned));
  }
}

TEST_CASE("GPU HRPB BF16 SpMM sums split panels in float32 slots: bitwise stable without the deterministic option") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    if (graph.name != "a hub row of 3000 columns") continue;
    const Hrpb h = graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu),
                                        options_for(true, false));
    CHECK(h.schedule.num_split_panels >= 1);
    const Tensor b = bf16_exact_random({graph.adjacency.num_cols(), 64}, 7);
    const Tensor c = gpu_spmm_bf16(h, b);
    CHECK(to_double(c) == to_double(gpu_spmm_bf16(h, b)));
    CHECK(worst_bound_ratio(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b),
                            bf16_spmm_bound(graph.adjacency.csr, graph.adjacency.values, b)) <= 1.0);
  }
}

TEST_CASE("GPU spmm_hrpb in bfloat16: forward and backward through autograd, against the CPU BF16 reference") {
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency.to(kGpu), {});
  const HrpbAdjacency h_host = graph_io::build_hrpb(graph.adjacency, {});
  const Tensor b_float = bf16_exact_random({graph.adjacency.num_cols(), 96}, 8);
  Tensor b = ops::cast(b_float.to(kGpu), DType::BFloat16).set_requires_grad(true);
  const Tensor c = ops::spmm_hrpb(h, b);
  REQUIRE(c.dtype() == DType::BFloat16);
  CHECK(worst_bound_ratio(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b_float),
                          bf16_spmm_bound(graph.adjacency.csr, graph.adjacency.values, b_float)) <= 1.0);
  // The CPU reference rounds at the same points; only the order of the
  // float32 sums differs, so C differs by at most one bfloat16 step.
  const std::vector<double> cpu = to_double(ops::spmm_hrpb(h_host, ops::cast(b_float, DType::BFloat16)));
  const std::vector<double> gpu = to_double(c);
  REQUIRE(cpu.size() == gpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::abs(gpu[i] - cpu[i]) > 2.0 * kBf16UnitRoundoff * std::abs(cpu[i]) + 1e-30) {
      FAIL_CHECK("element " << i << ": GPU " << gpu[i] << ", CPU " << cpu[i]);
      break;
    }
  }
  const Tensor grad_float = bf16_exact_random(c.shape(), 9);
  c.backward(ops::cast(grad_float.to(kGpu), DType::BFloat16));
  REQUIRE(b.grad().dtype() == DType::BFloat16);
  CHECK(worst_bound_ratio(b.grad(),
                          reference_spmm(graph.adjacency.transpose, graph.adjacency.transpose_values, grad_float),
                          bf16_spmm_bound(graph.adjacency.transpose, graph.adjacency.transpose_values, grad_float)) <=
        1.0);
}

TEST_CASE("GPU HRPB BF16 SpMM decodes A once per HRPB: copies share the fragments, new packed blocks get their own") {
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const Hrpb h = graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), graph.adjacency.values.to(kGpu), {});
  const Tensor b = bf16_exact_random({graph.adjacency.num_cols(), 64}, 10);
  const int64_t before = ops::hrpb_bf16_fragments_built();
  const std::vector<double> first = to_double(gpu_spmm_bf16(h, b));
  CHECK(ops::hrpb_bf16_fragments_built() == before + 1);
  const Hrpb copy = h;
  CHECK(to_double(gpu_spmm_bf16(copy, b)) == first);
  CHECK(to_double(gpu_spmm_bf16(h, b)) == first);
  CHECK(ops::hrpb_bf16_fragments_built() == before + 1);
  // Through the host and back: new tensors, fragments of their own, the same result.
  const Hrpb moved = h.to(Device::cpu()).to(kGpu);
  CHECK(to_double(gpu_spmm_bf16(moved, b)) == first);
  CHECK(ops::hrpb_bf16_fragments_built() == before + 2);
  // A copy whose packed blocks were replaced (values doubled) must not reuse the original's fragments.
  Hrpb doubled = h;
  doubled.packed_blocks = h.packed_blocks.clone();
  {
    const Hrpb host = doubled.to(Device::cpu());
    std::vector<int32_t> words = host.packed_blocks.to_vector<int32_t>();
    const std::vector<int64_t> size_ptr = host.size_ptr.to_vector<int64_t>();
    for (int64_t block = 0; block < h.num_blocks; ++block) {
      const int32_t* record = words.data() + size_ptr[static_cast<std::size_t>(block)];
      const int bricks = record[hrpb::kBrickColumns];
      int64_t nnz = 0;
      for (int k = 0; k < bricks; ++k) {
        nnz += std::popcount(hrpb::brick_pattern(record + hrpb::patterns_offset(bricks) + 2 * k));
      }
      int32_t* values = words.data() + size_ptr[static_cast<std::size_t>(block)] + hrpb::values_offset(bricks);
      for (int64_t i = 0; i < nnz; ++i) values[i] = std::bit_cast<int32_t>(2.0f * std::bit_cast<float>(values[i]));
    }
    doubled.packed_blocks = Tensor::from_vector(words, h.packed_blocks.shape(), kGpu);
  }
  const std::vector<double> twice = to_double(gpu_spmm_bf16(doubled, b));
  CHECK(ops::hrpb_bf16_fragments_built() == before + 3);
  REQUIRE(twice.size() == first.size());
  bool all_doubled = true;  // doubling is exact in bfloat16 and in the float32 sums
  for (std::size_t i = 0; i < first.size(); ++i) all_doubled = all_doubled && twice[i] == 2.0 * first[i];
  CHECK(all_doubled);
  CHECK(to_double(gpu_spmm_bf16(h, b)) == first);  // the original rebuilt from its own blocks: still right
}
