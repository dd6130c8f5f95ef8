#include <doctest/doctest.h>

#include "graph_io/hrpb_builder.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/hrpb_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

template <typename T>
void check_same(const Tensor& device_tensor, const Tensor& host_tensor, const char* what) {
  CAPTURE(what);
  CHECK(device_tensor.device() == kGpu);
  CHECK(device_tensor.to_vector<T>() == host_tensor.to_vector<T>());
}

void check_identical(const Hrpb& gpu, const Hrpb& cpu) {
  CHECK(gpu.num_panels == cpu.num_panels);
  CHECK(gpu.num_blocks == cpu.num_blocks);
  CHECK(gpu.max_block_words == cpu.max_block_words);
  check_same<int32_t>(gpu.blocked_row_ptr, cpu.blocked_row_ptr, "blocked_row_ptr");
  check_same<int32_t>(gpu.active_cols, cpu.active_cols, "active_cols");
  check_same<int64_t>(gpu.size_ptr, cpu.size_ptr, "size_ptr");
  check_same<int32_t>(gpu.packed_blocks, cpu.packed_blocks, "packed_blocks");
  check_same<int32_t>(gpu.schedule.virtual_block_ptr, cpu.schedule.virtual_block_ptr, "virtual_block_ptr");
  CHECK(gpu.statistics.num_bricks == cpu.statistics.num_bricks);
}

}  // namespace

TEST_CASE("GPU HRPB builder produces the host builder's buffers exactly, forward and transpose") {
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 64;  // the same schedule on both sides
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    const HrpbAdjacency cpu = graph_io::build_hrpb(graph.adjacency, options);
    const HrpbAdjacency gpu = graph_io::build_hrpb(graph.adjacency.to(kGpu), options);
    check_identical(gpu.forward, cpu.forward);
    check_identical(gpu.transpose, cpu.transpose);
    // Without values (pattern, weight 1).
    check_identical(graph_io::build_hrpb(graph.adjacency.csr.to(kGpu), Tensor(), options),
                    graph_io::build_hrpb(graph.adjacency.csr, Tensor(), options));
  }
}

TEST_CASE("GPU HRPB builder rejects values on another device") {
  const Adjacency a = weighted_graph(4, {0, 1}, {1, 2}, 2);
  CHECK_THROWS_AS(graph_io::build_hrpb(a.csr.to(kGpu), a.values, {}), InvalidArgument);
}
