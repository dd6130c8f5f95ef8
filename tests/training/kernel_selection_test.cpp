#include <doctest/doctest.h>

#include <filesystem>

#include "graph_io/graph.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "graph_io/kernel_choices_file.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "ops/choice_keys.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/spmm_format.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "training/kernel_selection.hpp"

using namespace sgnn;
using namespace sgnn::training;
using sgnn::testing::TempDir;

namespace {

graph_io::Graph small_graph(const std::string& cache_dir) {
  graph_io::SyntheticOptions options;
  options.num_nodes = 400;
  options.num_edges = 3000;
  options.seed = 3;
  return graph_io::make_graph(graph_io::generate_synthetic_dataset(options), graph_io::gcn_graph_options(),
                              Device::cpu(), cache_dir);
}

graph_io::HrpbOptions resolved() {
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 132 * 8;
  return options;
}

}  // namespace

TEST_CASE("kernel selection: auto with a choice of HRPB and no cache folder keeps the layout, stores nothing") {
  graph_io::Graph graph = small_graph("");
  ops::import_kernel_choices(graph.adjacency.csr, {{ops::spmm_choice_key(1, 16), "hrpb"}});
  KernelSelection selection(graph, SpmmFormat::Auto, resolved(), true);
  REQUIRE(graph.adjacency.hrpb != nullptr);  // built to be used
  selection.after_first_epoch();             // no cache file to measure or write: nothing to do, no failure
  CHECK(graph.adjacency.hrpb != nullptr);
  CHECK(selection.spmm_description(16) == "auto: hrpb");
}

TEST_CASE("kernel selection: auto on the CPU with nothing stored builds no HRPB layout; hrpb asked for does") {
  graph_io::Graph graph = small_graph("");
  KernelSelection selection(graph, SpmmFormat::Auto, resolved(), true);
  CHECK(graph.adjacency.hrpb == nullptr);  // the CPU times nothing: CSR, nothing to build
  CHECK(selection.hrpb_ms() == 0);
  CHECK(selection.spmm_description(16) == "auto: csr");
  graph_io::Graph asked = small_graph("");
  const KernelSelection explicit_hrpb(asked, SpmmFormat::Hrpb, resolved(), true);
  CHECK(asked.adjacency.hrpb != nullptr);  // the CPU's HRPB kernel runs it
  CHECK(explicit_hrpb.spmm_description(16) == "hrpb");
}

TEST_CASE("kernel selection: an SDDMM choice of the HRPB kernel keeps the layout that SpMM did not choose") {
  graph_io::Graph graph = small_graph("");
  ops::import_kernel_choices(graph.adjacency.csr,
                             {{ops::spmm_choice_key(1, 16), "csr"},
                              {ops::sddmm_choice_key(1, 64, true, DType::Float32, true), "hrpb"}});
  KernelSelection selection(graph, SpmmFormat::Auto, resolved(), true);
  REQUIRE(graph.adjacency.hrpb != nullptr);  // built: the SDDMM runs on it
  selection.after_first_epoch();
  CHECK(graph.adjacency.hrpb != nullptr);    // not freed as unused
  CHECK(selection.spmm_description(16) == "auto: csr");
}

TEST_CASE("kernel selection: with a cache folder, choices stored for the device and read back; CSR drops HRPB") {
  TempDir dir;
  {
    graph_io::Graph graph = small_graph((dir / "cache").string());
    ops::import_kernel_choices(graph.adjacency.csr, {{ops::spmm_choice_key(1, 16), "csr"}});
    KernelSelection selection(graph, SpmmFormat::Auto, resolved(), true);
    CHECK(graph.adjacency.hrpb == nullptr);  // the imported choice settles it: no HRPB built
    selection.after_first_epoch();
    CHECK(std::filesystem::exists(graph_io::kernel_choices_path(graph.statistics.cache_path)));
  }
  graph_io::Graph again = small_graph((dir / "cache").string());
  REQUIRE(again.statistics.cache_hit);
  KernelSelection selection(again, SpmmFormat::Auto, resolved(), true);
  CHECK(selection.imported());
  CHECK(again.adjacency.hrpb == nullptr);
  CHECK(ops::kernel_choices(again.adjacency.csr).at(ops::spmm_choice_key(1, 16)) == "csr");
}
