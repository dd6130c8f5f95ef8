#include <doctest/doctest.h>

#include "ops/determinism.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("kernel choice table: set, find, import, and forwarding to another table") {
  auto main_table = std::make_shared<ops::KernelChoiceTable>();
  ops::KernelChoiceTable transpose;
  CHECK_FALSE(main_table->find("spmm-tile:h1:f64").has_value());
  main_table->set("spmm-tile:h1:f64", "v4s16r1");
  CHECK(main_table->find("spmm-tile:h1:f64") == "v4s16r1");
  CHECK_FALSE(main_table->imported());
  transpose.set("sddmm:h1:f64", "segments-16");
  transpose.forward_to(main_table);
  CHECK(transpose.find("spmm-tile:h1:f64") == "v4s16r1");  // reads the other table now
  transpose.set("sddmm:h1:f32", "edge-groups-4");
  CHECK(main_table->find("sddmm:h1:f32") == "edge-groups-4");
  transpose.import({{"spmm-format:f64", "csr"}});
  CHECK(main_table->imported());
  CHECK(main_table->all().size() == 3);
}

TEST_CASE("kernel choices live in the graph's plan, shared with the transpose on request") {
  const Adjacency graph = random_graph(300, 2000, 5);
  ops::import_kernel_choices(graph.csr, {{"spmm-tile:h1:f16", "v4s4r1"}});
  CHECK(ops::kernel_choices(graph.csr).at("spmm-tile:h1:f16") == "v4s4r1");
  CHECK(ops::kernel_choices(graph.transpose).empty());
  ops::share_kernel_choices(graph.csr, graph.transpose);
  CHECK(ops::kernel_choices(graph.transpose).at("spmm-tile:h1:f16") == "v4s4r1");
}

TEST_CASE("may_tune: never on the CPU, on small graphs, during capture, when switched off, or deterministic unless imported") {
  const Adjacency small = random_graph(300, 2000, 6);
  ops::KernelChoiceTable table;
  CHECK_FALSE(ops::may_tune(small.csr, table, false));  // a CPU graph
  Csr large = small.csr;
  large.nnz = ops::kTuningMinEntries;  // only the device and counts matter here
  CHECK_FALSE(ops::may_tune(large, table, false));  // still on the CPU
  CHECK(ops::kernel_tuning_enabled());
  {
    const ops::ScopedKernelTuning off(false);
    CHECK_FALSE(ops::kernel_tuning_enabled());
  }
  CHECK(ops::kernel_tuning_enabled());
}
