// GPU tier: sddmm_dot and sddmm_add on bfloat16 x and y. Every CUDA path of
// sddmm_dot (ops/sddmm_path.hpp) forced in turn, with every lane count, into
// a poisoned float32 output, against float64 from the same bfloat16 values
// within (F + 2)·e·Σ_f |x·y| (products exact in float, float sums in any
// order); odd widths (scalar loads), widths of whole 16-byte vectors (8
// elements), several heads, misaligned views; the measured choice keyed
// apart from float32's; and the ops' gradients (tests/support/bf16_checks.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "ops/cast.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/bf16_checks.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::SddmmPath;

namespace {

// Reference dot products and their bounds, (F + 2)·e·Σ|x·y|, from host bfloat16 x and y.
struct Expected {
  std::vector<double> value;
  std::vector<double> bound;
};
Expected expected_dot(const Adjacency& graph, int64_t heads, int64_t features, const Tensor& x, const Tensor& y) {
  const EdgeCoordinates edges = edge_coordinates(graph);
  const std::vector<double> a = to_double(x);
  const std::vector<double> b = to_double(y);
  const auto h_count = static_cast<std::size_t>(heads);
  const auto f_count = static_cast<std::size_t>(features);
  Expected expected{std::vector<double>(edges.row.size() * h_count), std::vector<double>(edges.row.size() * h_count)};
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const std::size_t row = static_cast<std::size_t>(edges.row[k]) * h_count * f_count;
    const std::size_t col = static_cast<std::size_t>(edges.column[k]) * h_count * f_count;
    for (std::size_t h = 0; h < h_count; ++h) {
      double dot = 0.0;
      double magnitude = 0.0;
      for (std::size_t f = h * f_count; f < (h + 1) * f_count; ++f) {
        dot += a[row + f] * b[col + f];
        magnitude += std::abs(a[row + f] * b[col + f]);
      }
      expected.value[k * h_count + h] = dot;
      expected.bound[k * h_count + h] = static_cast<double>(features + 2) * kFloatUnitRoundoff * magnitude;
    }
  }
  return expected;
}

Tensor bf16_random(const Shape& shape, uint64_t seed) {
  return ops::cast(random_tensor(shape, seed, -2.0, 2.0), DType::BFloat16);
}

// sddmm_dot with `path` (and `lanes`) forced into a poisoned output; the worst error / bound.
double forced_ratio(SddmmPath path, int lanes, const Csr& gpu, int64_t heads, int64_t features, const Tensor& x,
                    const Tensor& y, const Expected& expected, bool by_row = false) {
  const ops::ScopedSddmmPath forced(path, lanes, by_row);
  Tensor out = poisoned({gpu.nnz * heads}, kGpu);
  ops::sddmm_dot_into(gpu, heads, features, x, y, out);
  REQUIRE(out.dtype() == DType::Float32);
  return worst_bound_ratio(out.to(Device::cpu()), expected.value, expected.bound);
}

// Every path and lane count on bfloat16 x [rows, heads·F] and y [cols, heads·F] (views allowed).
void check_every_path(const Adjacency& graph, const Csr& gpu, int64_t heads, int64_t features, const Tensor& x,
                      const Tensor& y) {
  const Expected expected = expected_dot(graph, heads, features, x.to(Device::cpu()), y.to(Device::cpu()));
  const Tensor x_gpu = x.device() == kGpu ? x : x.to(kGpu);
  const Tensor y_gpu = y.device() == kGpu ? y : y.to(kGpu);
  CAPTURE(graph.nnz());
  CAPTURE(heads);
  CAPTURE(features);
  CHECK(forced_ratio(SddmmPath::DenseRows, 0, gpu, heads, features, x_gpu, y_gpu, expected) <= 1.0);
  CHECK(forced_ratio(SddmmPath::DenseRows, 0, gpu, heads, features, x_gpu, y_gpu, expected, true) <= 1.0);
  CHECK(forced_ratio(SddmmPath::Segments, 0, gpu, heads, features, x_gpu, y_gpu, expected, true) <= 1.0);
  if (ops::sparse_plan(gpu)->entry_row.defined()) {
    CHECK(forced_ratio(SddmmPath::Edges, 0, gpu, heads, features, x_gpu, y_gpu, expected) <= 1.0);
  }
  for (const int lanes : {0, 1, 2, 4, 8, 16, 32}) {
    CAPTURE(lanes);
    CHECK(forced_ratio(SddmmPath::Segments, lanes, gpu, heads, features, x_gpu, y_gpu, expected) <= 1.0);
    CHECK(forced_ratio(SddmmPath::EdgeGroups, lanes, gpu, heads, features, x_gpu, y_gpu, expected) <= 1.0);
  }
}

}  // namespace

TEST_CASE("GPU BF16 sddmm_dot: every path within (F + 2)·e·Σ|x·y| of float64, odd and vector widths, heads") {
  const std::vector<Adjacency> graphs = {random_graph(1, 1, 21),         random_graph(33, 20, 22),
                                         random_graph(1000, 9000, 23),   rmat_graph(4096, 60000, 24),
                                         hub_graph(30000, 25000, 25)};
  uint64_t seed = 500;
  for (const Adjacency& graph : graphs) {
    const Csr gpu = graph.csr.to(kGpu);
    for (int64_t features : {1, 3, 4, 8, 17, 24, 64, 100, 128, 256, 257, 512}) {
      for (int64_t heads : {int64_t{1}, int64_t{4}}) {
        if (heads == 4 && features > 64) continue;
        const Tensor x = bf16_random({graph.num_rows(), heads * features}, seed += 2);
        const Tensor y = bf16_random({graph.num_cols(), heads * features}, seed + 1);
        check_every_path(graph, gpu, heads, features, x, y);
      }
    }
  }
}

TEST_CASE("GPU BF16 sddmm_dot: misaligned views take scalar loads, 16-byte aligned views the vector ones") {
  const Adjacency graph = hub_graph(3000, 2500, 26);
  const Csr gpu = graph.csr.to(kGpu);
  for (int64_t features : {8, 64, 256}) {
    // Offsets of 1 element (2 bytes: misaligned) and 8 elements (16 bytes: aligned) into the storage.
    for (int64_t offset : {1, 8}) {
      CAPTURE(offset);
      const auto view = [&](const Tensor& storage, int64_t rows) {
        return storage.narrow_rows(offset, rows * features + offset).view({rows, features});
      };
      const Tensor x_storage =
          bf16_random({graph.num_rows() * features + offset}, 600 + static_cast<uint64_t>(features)).to(kGpu);
      const Tensor y_storage =
          bf16_random({graph.num_cols() * features + offset}, 700 + static_cast<uint64_t>(features)).to(kGpu);
      check_every_path(graph, gpu, 1, features, view(x_storage, graph.num_rows()), view(y_storage, graph.num_cols()));
    }
  }
}

TEST_CASE("GPU BF16 sddmm_dot: the measured choice times both row-order kernels and is recorded under its own key") {
  const Adjacency graph = rmat_graph(20000, 400000, 27);
  const Csr gpu = graph.csr.to(kGpu);
  REQUIRE(ops::forced_sddmm_path() == SddmmPath::Auto);
  const int64_t features = 64;
  const Tensor x32 = random_tensor({graph.num_rows(), features}, 800, -2.0, 2.0);
  const Tensor y32 = random_tensor({graph.num_cols(), features}, 801, -2.0, 2.0);
  const Tensor x = ops::cast(x32, DType::BFloat16);
  const Tensor y = ops::cast(y32, DType::BFloat16);
  const Expected expected = expected_dot(graph, 1, features, x, y);
  Tensor out = poisoned({gpu.nnz}, kGpu);
  const int64_t timed_before = ops::candidates_timed();
  ops::sddmm_dot_into(gpu, 1, features, x.to(kGpu), y.to(kGpu), out);
  CHECK(worst_bound_ratio(out.to(Device::cpu()), expected.value, expected.bound) <= 1.0);
  // Every candidate is timed once, and each kernel that has a row order once
  // more in it (both, not only the faster in the plan's order).
  const std::vector<ops::SddmmKernel> kernels = ops::sddmm_candidates(gpu, features, true, DType::BFloat16);
  const auto row_order =
      std::count_if(kernels.begin(), kernels.end(), [](const ops::SddmmKernel& kernel) { return kernel.by_row; });
  const auto walking = std::count_if(kernels.begin(), kernels.end(), [](const ops::SddmmKernel& kernel) {
    return !kernel.by_row && ops::walks_segments(kernel.path);
  });
  CHECK(walking == 4);  // Segments with one, two and four slices a lane (8, 4 and 2 lanes), and DenseRows
  CHECK(row_order == walking);
  CHECK(ops::candidates_timed() - timed_before == static_cast<int64_t>(kernels.size()));
  Tensor out32 = poisoned({gpu.nnz}, kGpu);
  ops::sddmm_dot_into(gpu, 1, features, x32.to(kGpu), y32.to(kGpu), out32);
  const ops::KernelChoiceMap choices = ops::kernel_choices(gpu);
  CHECK(choices.contains(ops::sddmm_choice_key(1, features, true, DType::BFloat16)));
  CHECK(choices.contains(ops::sddmm_choice_key(1, features, true, DType::Float32)));
  CHECK(ops::sddmm_choice_key(1, features, true, DType::BFloat16) == "sddmm:h1:f64:bf16");
  CHECK(ops::sddmm_choice_key(1, features, true, DType::Float32) == "sddmm:h1:f64");
  // A second call reads its recorded choice back: nothing more is timed.
  const int64_t timed = ops::candidates_timed();
  ops::sddmm_dot_into(gpu, 1, features, x.to(kGpu), y.to(kGpu), out);
  CHECK(ops::candidates_timed() == timed);
}

TEST_CASE("GPU BF16 sddmm_dot and sddmm_add through the ops: float32 outputs and bfloat16 gradients within bounds") {
  CHECK(bf16::sddmm_dot_error(random_graph(1, 1, 31, false, kGpu), 1, 3) <= 1.0);
  CHECK(bf16::sddmm_dot_error(random_graph(500, 4000, 32, false, kGpu), 1, 64) <= 1.0);
  CHECK(bf16::sddmm_dot_error(rmat_graph(4096, 60000, 33, kGpu), 4, 17) <= 1.0);
  CHECK(bf16::sddmm_dot_error(hub_graph(20001, 20000, 34, kGpu), 8, 8) <= 1.0);
  CHECK(bf16::sddmm_add_error(random_graph(1, 1, 35, false, kGpu), 1) <= 1.0);
  CHECK(bf16::sddmm_add_error(rmat_graph(4096, 60000, 36, kGpu), 8) <= 1.0);
  CHECK(bf16::sddmm_add_error(hub_graph(100001, 100000, 37, kGpu), 3) <= 1.0);
}
