#include <doctest/doctest.h>

#include "graph_io/hrpb_builder.hpp"
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

TEST_CASE("GPU HRPB SpMM on misaligned B and C views: element-wise staging and stores") {
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
