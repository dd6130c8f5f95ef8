#include <doctest/doctest.h>

#include <cmath>

#include "graph_io/hrpb_builder.hpp"
#include "ops/cast.hpp"
#include "ops/spmm_hrpb.hpp"
#include "tests/support/hrpb_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Few concurrent thread blocks so that heavy panels get split.
graph_io::HrpbOptions splitting_options() {
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 4;
  return options;
}

}  // namespace

TEST_CASE("spmm_hrpb matches the float64 reference on typical and adversarial graphs, widths 1 to 100") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    for (const bool split : {false, true}) {
      const HrpbAdjacency h =
          graph_io::build_hrpb(graph.adjacency, split ? splitting_options() : graph_io::HrpbOptions{});
      for (const int64_t width : {1, 3, 17, 100}) {
        CAPTURE(width);
        const Tensor b = random_tensor({graph.adjacency.num_cols(), width}, 40 + static_cast<uint64_t>(width));
        const Tensor c = ops::spmm_hrpb(h, b);
        CHECK(c.shape() == Shape{graph.adjacency.num_rows(), width});
        CHECK(relative_error(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b)) < 1e-5);
      }
    }
  }
}

TEST_CASE("spmm_hrpb splits the hub-row panel when slots are few, and the split result is exact") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    if (graph.name != "a hub row of 3000 columns") continue;
    const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency, splitting_options());
    CHECK(h.forward.schedule.num_split_panels >= 1);
    const Tensor b = random_tensor({graph.adjacency.num_cols(), 8}, 5);
    CHECK(relative_error(ops::spmm_hrpb(h, b), reference_spmm(graph.adjacency.csr, graph.adjacency.values, b)) <
          1e-5);
  }
}

TEST_CASE("spmm_hrpb backward gives dB = A^T dC through the transpose HRPB") {
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency, {});
  Tensor b = random_tensor({graph.adjacency.num_cols(), 5}, 8).set_requires_grad(true);
  const Tensor c = ops::spmm_hrpb(h, b);
  const Tensor grad_c = random_tensor(c.shape(), 9);
  c.backward(grad_c);
  CHECK(relative_error(b.grad(), reference_spmm(graph.adjacency.transpose, graph.adjacency.transpose_values,
                                                grad_c)) < 1e-5);
}

TEST_CASE("spmm_hrpb gradient agrees with finite differences") {
  const Adjacency a = weighted_graph(20, {0, 3, 5, 19, 7, 7}, {1, 1, 2, 18, 17, 0}, 3);
  const HrpbAdjacency h = graph_io::build_hrpb(a, {});
  const double error = gradient_error([&](const std::vector<Tensor>& x) { return ops::spmm_hrpb(h, x[0]); },
                                      {random_tensor({20, 3}, 4).set_requires_grad(true)});
  CHECK(error < 1e-2);
}

TEST_CASE("spmm_hrpb in bfloat16 stays within the stated bound of float64 and rounds A's values to bfloat16") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    for (const bool split : {false, true}) {
      const HrpbAdjacency h =
          graph_io::build_hrpb(graph.adjacency, split ? splitting_options() : graph_io::HrpbOptions{});
      for (const int64_t width : {1, 3, 17, 100}) {
        CAPTURE(width);
        const Tensor b = ops::cast(random_tensor({graph.adjacency.num_cols(), width}, 70 + static_cast<uint64_t>(width)),
                                   DType::BFloat16);
        const Tensor b_float = ops::cast(b, DType::Float32);  // exactly b's values
        const Tensor c = ops::spmm_hrpb(h, b);
        REQUIRE(c.dtype() == DType::BFloat16);
        CHECK(c.shape() == Shape{graph.adjacency.num_rows(), width});
        CHECK(worst_bound_ratio(c, reference_spmm(graph.adjacency.csr, graph.adjacency.values, b_float),
                                bf16_spmm_bound(graph.adjacency.csr, graph.adjacency.values, b_float)) <= 1.0);
      }
    }
  }
  // Row 0 = w·b1 + 1·b2 with w = 1 + 2^-9 + 2^-12 (a float32, not a
  // bfloat16: it rounds to 1), b1 = 1, b2 = -1: A rounded to bfloat16 gives
  // exactly 0; float32 A would give bfloat16(2^-9 + 2^-12) != 0.
  Adjacency a = weighted_graph(3, {1, 2}, {0, 0}, 1);
  const float w = 1.0f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -12);
  a.values = Tensor::from_vector(std::vector<float>{w, 1.0f}, {2});
  a.transpose_values = a.values;  // transpose rows 1 and 2 hold one entry each, in the same order
  const HrpbAdjacency h = graph_io::build_hrpb(a, {});
  const Tensor c = ops::spmm_hrpb(h, ops::cast(Tensor::from_vector(std::vector<float>{0.0f, 1.0f, -1.0f}, {3, 1}),
                                               DType::BFloat16));
  CHECK(to_double(c) == std::vector<double>{0.0, 0.0, 0.0});
  CHECK(to_double(ops::spmm_hrpb(h, Tensor::from_vector(std::vector<float>{0.0f, 1.0f, -1.0f}, {3, 1})))[0] ==
        static_cast<double>(w - 1.0f));
}

TEST_CASE("spmm_hrpb in bfloat16: dB = A^T dC in bfloat16 through autograd") {
  const NamedGraph graph = hrpb_test_graphs()[2];  // power-law, GCN-normalised
  const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency, {});
  Tensor b = ops::cast(random_tensor({graph.adjacency.num_cols(), 5}, 8), DType::BFloat16).set_requires_grad(true);
  const Tensor c = ops::spmm_hrpb(h, b);
  const Tensor grad_c = ops::cast(random_tensor(c.shape(), 9), DType::BFloat16);
  c.backward(grad_c);
  REQUIRE(b.grad().dtype() == DType::BFloat16);
  const Tensor grad_float = ops::cast(grad_c, DType::Float32);
  CHECK(worst_bound_ratio(b.grad(),
                          reference_spmm(graph.adjacency.transpose, graph.adjacency.transpose_values, grad_float),
                          bf16_spmm_bound(graph.adjacency.transpose, graph.adjacency.transpose_values, grad_float)) <=
        1.0);
}

TEST_CASE("spmm_hrpb rejects a dense operand of the wrong shape, dtype or rank") {
  const Adjacency a = weighted_graph(10, {0, 1}, {1, 2}, 2);
  const HrpbAdjacency h = graph_io::build_hrpb(a, {});
  CHECK_THROWS_AS(ops::spmm_hrpb(h, Tensor::zeros({9, 4})), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm_hrpb(h, Tensor::zeros({10, 4}, DType::Int32)), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm_hrpb(h, Tensor::zeros({10})), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm_hrpb(h, Tensor()), InvalidArgument);
  HrpbAdjacency mismatched = h;
  mismatched.transpose = graph_io::build_hrpb(weighted_graph(11, {0}, {1}, 2), {}).transpose;
  CHECK_THROWS_AS(ops::spmm_hrpb(mismatched, Tensor::zeros({10, 4})), InvalidArgument);
  CHECK(ops::spmm_hrpb_concurrent_blocks(Device::cpu(), 64) == 132 * 8);
  CHECK_THROWS_AS(ops::spmm_hrpb_concurrent_blocks(Device::cpu(), 0), InvalidArgument);
}
