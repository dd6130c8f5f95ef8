#include <doctest/doctest.h>

#include "graph_io/hrpb_builder.hpp"
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
