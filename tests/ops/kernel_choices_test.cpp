#include <doctest/doctest.h>

#include "ops/determinism.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/older_kernel_choices.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("kernel choice table: set, find, import, and forwarding to another table") {
  auto main_table = std::make_shared<ops::KernelChoiceTable>();
  ops::KernelChoiceTable transpose;
  CHECK_FALSE(main_table->find("spmm:h1:f64").has_value());
  main_table->set("spmm:h1:f64", "v4s16r1");
  CHECK(main_table->find("spmm:h1:f64") == "v4s16r1");
  CHECK_FALSE(main_table->imported());
  transpose.set("sddmm:h1:f64", "segments-16");
  transpose.forward_to(main_table);
  CHECK(transpose.find("spmm:h1:f64") == "v4s16r1");  // reads the other table now
  transpose.set("sddmm:h1:f32", "edge-groups-4");
  CHECK(main_table->find("sddmm:h1:f32") == "edge-groups-4");
  transpose.import({{"spmm:h1:f32", "csr"}});
  CHECK(main_table->imported());
  CHECK(main_table->all().size() == 3);
}

TEST_CASE("kernel choice table: decoded choices are kept beside the text until it changes") {
  auto main_table = std::make_shared<ops::KernelChoiceTable>();
  ops::KernelChoiceTable transpose;
  transpose.forward_to(main_table);
  const ops::DecodedChoiceKey key{1, 1, 64};
  CHECK_FALSE(main_table->find_decoded(key).has_value());
  transpose.set_decoded(key, 42);
  CHECK(main_table->find_decoded(key) == uint64_t{42});
  CHECK_FALSE(main_table->find_decoded({1, 1, 32}).has_value());
  CHECK_FALSE(main_table->find_decoded({2, 1, 64}).has_value());
  main_table->set("spmm:h1:f64", "v4s16r1");  // the text changed: decode it again
  CHECK_FALSE(transpose.find_decoded(key).has_value());
  main_table->set_decoded(key, 7);
  main_table->import({{"spmm:h1:f64", "csr"}});
  CHECK_FALSE(main_table->find_decoded(key).has_value());
}

TEST_CASE("kernel choices live in the graph's plan, shared with the transpose on request") {
  const Adjacency graph = random_graph(300, 2000, 5);
  ops::import_kernel_choices(graph.csr, {{"spmm:h1:f16", "v4s4r1"}});
  CHECK(ops::kernel_choices(graph.csr).at("spmm:h1:f16") == "v4s4r1");
  CHECK(ops::kernel_choices(graph.transpose).empty());
  ops::share_kernel_choices(graph.csr, graph.transpose);
  CHECK(ops::kernel_choices(graph.transpose).at("spmm:h1:f16") == "v4s4r1");
}

TEST_CASE("kernel choices stored by older builds are imported under today's keys, one key a call") {
  const ops::KernelChoiceMap older{
      // A width on the vector: the tile and the format meet in one key.
      {"spmm-tile:h1:f64", "v4s16r1-light"},
      {"spmm-format:f64", "hrpb"},
      {"spmm-tile:bf16:h8:f8", "v8s8r1-heads"},
      // 41 columns: padded, with the tile of the padded width (44), which keeps its own key.
      {"spmm-padded:h1:f41", "padded"},
      {"spmm-tile:h1:f44", "v4s16r1"},
      {"spmm-format:f41", "csr"},
      // Direct; and padded without a stored tile for its padded width (dropped: timed again).
      {"spmm-padded:h2:f13", "direct"},
      {"spmm-padded:bf16:h1:f20", "padded"},
      // A scalar tile (one tile existed: nothing was timed) is dropped.
      {"spmm-tile:h1:f41:scalar", "v1s32r4"},
      // SDDMM: a padded choice takes the padded width's kernel; a direct one keeps its ":scalar" key.
      {"sddmm-padded:h1:f41", "padded"},
      {"sddmm:h1:f41:scalar", "edges"},
      {"sddmm:h1:f44", "segments-8"},
      {"sddmm-padded:bf16:h1:f12", "direct"},
      {"sddmm:h1:f12:scalar:bf16", "dense-rows"},
      {"sddmm:h1:f64:hrpb", "hrpb"},
      {"someday:h1:f1", "a kernel of a newer build"},
      // g-SpMM Max/Min's order alone, timed among fewer launches than today's key holds: dropped.
      {"gspmm-extreme-order:h1:f128", "rows"},
  };
  const ops::KernelChoiceMap expected{
      {"spmm:h1:f64", "hrpb v4s16r1-light"},
      {"spmm:bf16:h8:f8", "v8s8r1-heads"},
      {"spmm:h1:f41:scalar", "csr padded v4s16r1"},
      {"spmm:h1:f44", "v4s16r1"},
      {"spmm:h2:f13:scalar", "direct"},
      {"sddmm:h1:f41:scalar", "padded segments-8"},
      {"sddmm:h1:f44", "segments-8"},
      {"sddmm:h1:f12:scalar:bf16", "dense-rows"},
      {"sddmm:h1:f64:hrpb", "hrpb"},
      {"someday:h1:f1", "a kernel of a newer build"},
  };
  CHECK(ops::with_current_keys(older) == expected);
  CHECK(ops::with_current_keys(expected) == expected);  // today's keys pass through
  const Adjacency graph = random_graph(300, 2000, 7);
  ops::import_kernel_choices(graph.csr, older);
  CHECK(ops::kernel_choices(graph.csr) == expected);
  CHECK(ops::records_spmm_format(expected));
  CHECK(ops::records_hrpb_spmm(expected));
  CHECK(ops::records_hrpb_sddmm(expected));
  CHECK_FALSE(ops::records_hrpb_spmm({{"spmm:h1:f41:scalar", "csr padded v4s16r1"}}));
  CHECK_FALSE(ops::records_spmm_format({{"spmm:h1:f64", "v4s16r1"}}));
  CHECK_FALSE(ops::records_hrpb_sddmm({{"sddmm:h1:f64", "segments-8"}}));
  CHECK(ops::records_hrpb_sddmm({{"sddmm:h1:f13:scalar", "padded hrpb"}}));
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
