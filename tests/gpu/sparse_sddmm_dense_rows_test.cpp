// GPU tier: every CUDA kernel of sddmm_dot (ops/sddmm_path.hpp: Segments,
// DenseRows, Edges and EdgeGroups with every group size), each forced on the
// same graphs, against a float64 reference on the host, outputs poisoned
// before every run; and the measured choice between them.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "ops/kernel_choices.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::SddmmPath;

namespace {

// A host CSR of `rows` rows over `cols` columns: each row has a random number
// of entries in [min_degree, max_degree] (distinct random columns, sorted),
// every 37th row is empty, and row `hub_row` holds every column 0..cols-1.
Csr long_row_csr(int64_t rows, int64_t cols, int64_t min_degree, int64_t max_degree, int64_t hub_row,
                 uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int64_t> degree(min_degree, max_degree);
  std::uniform_int_distribution<int32_t> column(0, static_cast<int32_t>(cols - 1));
  std::vector<int32_t> indptr{0};
  std::vector<int32_t> indices;
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<int32_t> entries;
    if (row == hub_row) {
      for (int64_t c = 0; c < cols; ++c) entries.push_back(static_cast<int32_t>(c));
    } else if (row % 37 != 5) {
      const int64_t count = degree(engine);
      for (int64_t k = 0; k < count; ++k) entries.push_back(column(engine));
      std::sort(entries.begin(), entries.end());
      entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    }
    indices.insert(indices.end(), entries.begin(), entries.end());
    indptr.push_back(static_cast<int32_t>(indices.size()));
  }
  Csr csr;
  csr.num_rows = rows;
  csr.num_cols = cols;
  csr.nnz = static_cast<int64_t>(indices.size());
  csr.indptr = Tensor::from_vector(indptr, {rows + 1});
  csr.indices = Tensor::from_vector(indices, {csr.nnz});
  csr.validate();
  return csr;
}

// out[e, h] = Σ_f x[row(e), h, f] · y[col(e), h, f] in float64, x and y on the host.
std::vector<double> reference_dot(const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y) {
  const std::vector<int64_t> lengths = csr.row_lengths();
  const std::vector<int32_t> indices = csr.indices.to_vector<int32_t>();
  const std::vector<float> left = x.to_vector<float>();
  const std::vector<float> right = y.to_vector<float>();
  const int64_t width = heads * features;
  std::vector<double> out(static_cast<std::size_t>(csr.nnz * heads));
  int64_t e = 0;
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t k = 0; k < lengths[static_cast<std::size_t>(row)]; ++k, ++e) {
      const int64_t col = indices[static_cast<std::size_t>(e)];
      for (int64_t h = 0; h < heads; ++h) {
        double dot = 0.0;
        for (int64_t f = h * features; f < (h + 1) * features; ++f) {
          dot += double{left[static_cast<std::size_t>(row * width + f)]} *
                 double{right[static_cast<std::size_t>(col * width + f)]};
        }
        out[static_cast<std::size_t>(e * heads + h)] = dot;
      }
    }
  }
  return out;
}

// Runs the CUDA sddmm_dot with `path` forced into a poisoned output.
Tensor run_forced(SddmmPath path, const Csr& gpu, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                  int lanes = 0, bool by_row = false) {
  const ops::ScopedSddmmPath forced(path, lanes, by_row);
  Tensor out = poisoned({gpu.nnz * heads}, kGpu);
  ops::sddmm_dot_into(gpu, heads, features, x, y, out);
  return out;
}

// Every path on fresh x, y against float64 (Edges where the plan has entry
// rows); returns the DenseRows output.
Tensor check_every_path(const Csr& cpu, const Csr& gpu, int64_t heads, int64_t features, uint64_t seed) {
  const Tensor x = random_tensor({cpu.num_rows, heads * features}, seed);
  const Tensor y = random_tensor({cpu.num_cols, heads * features}, seed + 1);
  const std::vector<double> expected = reference_dot(cpu, heads, features, x, y);
  const Tensor x_gpu = x.to(kGpu);
  const Tensor y_gpu = y.to(kGpu);
  CAPTURE(cpu.num_rows);
  CAPTURE(cpu.nnz);
  CAPTURE(heads);
  CAPTURE(features);
  const Tensor segments = run_forced(SddmmPath::Segments, gpu, heads, features, x_gpu, y_gpu);
  CHECK(relative_error(segments, expected) < 1e-5);
  const Tensor dense = run_forced(SddmmPath::DenseRows, gpu, heads, features, x_gpu, y_gpu);
  CHECK(relative_error(dense, expected) < 1e-5);
  // The segment kernels with their work items in row order (split rows skipped there).
  for (const SddmmPath path : {SddmmPath::Segments, SddmmPath::DenseRows}) {
    CAPTURE(ops::sddmm_path_name(path));
    const Tensor by_row = run_forced(path, gpu, heads, features, x_gpu, y_gpu, 0, true);
    CHECK(relative_error(by_row, expected) < 1e-5);
  }
  if (ops::sparse_plan(gpu)->entry_row.defined()) {
    const Tensor edges = run_forced(SddmmPath::Edges, gpu, heads, features, x_gpu, y_gpu);
    CHECK(relative_error(edges, expected) < 1e-5);
  }
  for (const int lanes : {1, 2, 4, 8, 16, 32}) {
    CAPTURE(lanes);
    const Tensor groups = run_forced(SddmmPath::EdgeGroups, gpu, heads, features, x_gpu, y_gpu, lanes);
    CHECK(relative_error(groups, expected) < 1e-5);
    const Tensor segments_lanes = run_forced(SddmmPath::Segments, gpu, heads, features, x_gpu, y_gpu, lanes);
    CHECK(relative_error(segments_lanes, expected) < 1e-5);
  }
  return dense;
}

}  // namespace

TEST_CASE("GPU sddmm_dot: every path matches float64 on rows of 2000-20000 entries and a hub row of 100000") {
  // ≈ 2.8M entries: enough that the plan keeps long segments
  // (ops::choose_segment_length shortens them on small graphs).
  const Csr cpu = long_row_csr(250, 100000, 2000, 20000, 17, 4242);
  const Csr gpu = cpu.to(kGpu);
  const std::shared_ptr<const ops::SparsePlan> plan = ops::sparse_plan(gpu);
  REQUIRE(ops::forced_sddmm_path() == SddmmPath::Auto);
  uint64_t seed = 7000;
  for (int64_t heads : {int64_t{1}, int64_t{8}}) {
    for (int64_t features : {1, 3, 17, 64, 100, 257}) {
      if (heads == 8 && features > 64) continue;  // keeps y under 210 MB
      const Tensor dense = check_every_path(cpu, gpu, heads, features, seed += 2);
      // Long rows: the plan picks DenseRows by itself, and the kernel is
      // deterministic (one lane writes each output, fixed addition order).
      CHECK(ops::choose_sddmm_path(*plan, features) == SddmmPath::DenseRows);
      const Tensor x = random_tensor({cpu.num_rows, heads * features}, seed).to(kGpu);
      const Tensor y = random_tensor({cpu.num_cols, heads * features}, seed + 1).to(kGpu);
      Tensor automatic = poisoned({cpu.nnz * heads}, kGpu);
      const ops::ScopedKernelTuning rule(false);  // the rule's choice, not a timed one
      ops::sddmm_dot_into(gpu, heads, features, x, y, automatic);
      CHECK(automatic.to_vector<float>() == dense.to_vector<float>());
    }
  }
}

TEST_CASE("GPU sddmm_dot: every path is right on short rows, empty rows, n = 1, a hub row and R-MAT too") {
  const std::vector<Adjacency> graphs = {random_graph(1, 1, 11),       random_graph(5, 0, 12),
                                         random_graph(33, 20, 13),     random_graph(1000, 9000, 14),
                                         rmat_graph(4096, 60000, 15),  hub_graph(120000, 100000, 16)};
  uint64_t seed = 8000;
  for (const Adjacency& graph : graphs) {
    const Csr gpu = graph.csr.to(kGpu);
    for (int64_t features : {1, 2, 3, 4, 8, 16, 17, 32, 64, 100, 128, 255, 256, 257, 512}) {
      for (int64_t heads : {int64_t{1}, int64_t{8}}) {
        if (heads == 8 && features > 64) continue;
        (void)check_every_path(graph.csr, gpu, heads, features, seed += 2);
      }
    }
  }
}

TEST_CASE("GPU sddmm_dot: the dense-row and edge paths take scalar loads on misaligned views") {
  const Csr cpu = long_row_csr(64, 6000, 300, 2000, 3, 4343);
  const Csr gpu = cpu.to(kGpu);
  // Rows start one float into the storage (moved to the GPU whole, then
  // viewed there): 128-bit loads would be misaligned.
  auto misaligned = [](const Tensor& storage, int64_t rows, int64_t features) {
    return storage.narrow_rows(1, rows * features + 1).view({rows, features});
  };
  for (int64_t features : {16, 64, 256}) {
    const Tensor x_storage = random_tensor({cpu.num_rows * features + 1}, 9000 + static_cast<uint64_t>(features));
    const Tensor y_storage = random_tensor({cpu.num_cols * features + 1}, 9100 + static_cast<uint64_t>(features));
    const std::vector<double> expected = reference_dot(cpu, 1, features, misaligned(x_storage, cpu.num_rows, features),
                                                       misaligned(y_storage, cpu.num_cols, features));
    REQUIRE(ops::sparse_plan(gpu)->entry_row.defined());
    for (SddmmPath path : {SddmmPath::DenseRows, SddmmPath::Edges, SddmmPath::EdgeGroups}) {
      const Tensor got = run_forced(path, gpu, 1, features, misaligned(x_storage.to(kGpu), cpu.num_rows, features),
                                    misaligned(y_storage.to(kGpu), cpu.num_cols, features));
      CAPTURE(features);
      CAPTURE(ops::sddmm_path_name(path));
      CHECK(relative_error(got, expected) < 1e-5);
    }
  }
}

TEST_CASE("GPU sddmm_dot: widths beyond the dense-row kernel fall back to segments, even when forced") {
  const Csr cpu = long_row_csr(40, 3000, 300, 1000, 0, 4444);
  const Csr gpu = cpu.to(kGpu);
  const int64_t features = ops::kDenseRowsMaxFeatures + 3;
  const ops::ScopedSddmmPath forced(SddmmPath::DenseRows);
  CHECK(ops::choose_sddmm_path(*ops::sparse_plan(gpu), features) == SddmmPath::Segments);
  const Tensor x = random_tensor({cpu.num_rows, features}, 9200);
  const Tensor y = random_tensor({cpu.num_cols, features}, 9201);
  Tensor got = poisoned({cpu.nnz}, kGpu);
  ops::sddmm_dot_into(gpu, 1, features, x.to(kGpu), y.to(kGpu), got);
  CHECK(relative_error(got, reference_dot(cpu, 1, features, x, y)) < 1e-5);
}
