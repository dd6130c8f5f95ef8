#include <doctest/doctest.h>

#include <algorithm>
#include <bit>

#include "core/hrpb_schedule.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "tests/support/hrpb_graphs.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using namespace sgnn::testing;

namespace {

std::vector<int64_t> as_int64(const Tensor& t) {
  if (t.dtype() == DType::Int64) return t.to_vector<int64_t>();
  const std::vector<int32_t> v = t.to_vector<int32_t>();
  return {v.begin(), v.end()};
}

void check_round_trip(const Csr& csr, const Tensor& values, const Hrpb& hrpb) {
  const HrpbAsCsr back = hrpb_to_csr(hrpb);
  CHECK(as_int64(back.indptr) == as_int64(csr.indptr));
  CHECK(back.indices.to_vector<int32_t>() == csr.indices.to_vector<int32_t>());
  if (values.defined()) {
    CHECK(back.values.to_vector<float>() == values.to_vector<float>());
  } else {
    CHECK(back.values.to_vector<float>() == std::vector<float>(static_cast<std::size_t>(csr.nnz), 1.0f));
  }
}

}  // namespace

TEST_CASE("HRPB of a small matrix has the paper's layout word for word") {
  // 20 rows: row 0 -> columns 5, 9; row 3 -> column 9; row 17 -> column 2.
  const Adjacency a = weighted_graph(20, {5, 9, 9, 2}, {0, 0, 3, 17}, 1);
  const Hrpb h = build_hrpb(a.csr, a.values, {});
  const std::vector<float> v = a.values.to_vector<float>();
  CHECK(h.num_panels == 2);
  CHECK(h.num_blocks == 2);
  CHECK(h.blocked_row_ptr.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 2});
  std::vector<int32_t> active(32, -1);
  active[0] = 5, active[1] = 9, active[16] = 2;
  CHECK(h.active_cols.to_vector<int32_t>() == active);
  // Block 0: colPtr 0,1,1,1,1 | rows 0 | patterns at word 6 | 3 values | pad -> 12 words.
  // Block 1: colPtr 0,1,1,1,1 | rows 0 | pad | pattern at 6 | 1 value -> 9, padded to 10.
  CHECK(h.size_ptr.to_vector<int64_t>() == std::vector<int64_t>{0, 12, 22});
  CHECK(h.max_block_words == 12);
  const uint32_t pattern0 = (1u << 0) | (1u << 1) | (1u << 13);  // (0,5) (0,9) (3,9)
  const uint32_t pattern1 = 1u << 4;                              // (17,2): row 1 of panel 1
  const std::vector<int32_t> expected{
      0, 1, 1, 1, 1, 0, static_cast<int32_t>(pattern0), 0,
      std::bit_cast<int32_t>(v[0]), std::bit_cast<int32_t>(v[1]), std::bit_cast<int32_t>(v[2]), 0,
      0, 1, 1, 1, 1, 0, static_cast<int32_t>(pattern1), 0, std::bit_cast<int32_t>(v[3]), 0};
  CHECK(h.packed_blocks.to_vector<int32_t>() == expected);
  CHECK(h.statistics.num_bricks == 2);
  CHECK(h.statistics.nnz_per_brick() == doctest::Approx(2.0));
}

TEST_CASE("HRPB -> CSR round trip equals the input, forward and transpose, on typical and adversarial graphs") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    const HrpbAdjacency h = build_hrpb(graph.adjacency, {});
    check_round_trip(graph.adjacency.csr, graph.adjacency.values, h.forward);
    check_round_trip(graph.adjacency.transpose, graph.adjacency.transpose_values, h.transpose);
    // Without values: the pattern, weight 1.
    check_round_trip(graph.adjacency.csr, Tensor(), build_hrpb(graph.adjacency.csr, Tensor(), {}));
    CHECK(h.forward.statistics.nnz == graph.adjacency.nnz());
    // The largest block's word count, which sizes the kernel's record stages.
    const std::vector<int64_t> size_ptr = h.forward.size_ptr.to_vector<int64_t>();
    int64_t largest = 0;
    for (std::size_t b = 1; b < size_ptr.size(); ++b) largest = std::max(largest, size_ptr[b] - size_ptr[b - 1]);
    CHECK(h.forward.max_block_words == largest);
    CHECK(h.forward.num_panels == (graph.adjacency.num_rows() + 15) / 16);
  }
}

TEST_CASE("HRPB statistics: a full dense panel has alpha 1; empty panels are counted") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    if (graph.name == "a full dense panel") {
      const Hrpb h = build_hrpb(graph.adjacency.csr, Tensor(), {});
      // Panel 1 (rows 16..31): 40 active columns -> 3 blocks, 10 full bricks.
      CHECK(h.blocked_row_ptr.to_vector<int32_t>() == std::vector<int32_t>{0, 0, 3, 4});
      CHECK(h.statistics.num_bricks == 11);
      CHECK(h.statistics.empty_panels == 1);
      CHECK(h.statistics.alpha() == doctest::Approx((640.0 + 1.0) / (11 * 64.0)));
      CHECK(h.statistics.operational_intensity() == doctest::Approx(512.0 * (641.0 / 704.0)));
      CHECK(std::string(h.statistics.synergy()) == "high");
      CHECK(h.describe().find("alpha") != std::string::npos);
      CHECK(h.describe().find("largest block: " + std::to_string(h.max_block_words) + " words") != std::string::npos);
    }
    if (graph.name == "empty panels, 100 rows") {
      const Hrpb h = build_hrpb(graph.adjacency.csr, Tensor(), {});
      CHECK(h.statistics.empty_panels == 5);  // panels 1, 2, 3, 5, 6 of 7
    }
  }
}

TEST_CASE("build_hrpb rejects values of the wrong shape or dtype") {
  const Adjacency a = weighted_graph(4, {0, 1}, {1, 2}, 2);
  CHECK_THROWS_AS(build_hrpb(a.csr, Tensor::zeros({3}), {}), InvalidArgument);
  CHECK_THROWS_AS(build_hrpb(a.csr, Tensor::zeros({2}, DType::Int32), {}), InvalidArgument);
  CHECK_THROWS_AS(build_hrpb(a.csr, Tensor::zeros({2, 1}), {}), InvalidArgument);
}

TEST_CASE("schedule: the paper's example (one heavy panel among 991, 100 slots) is not split") {
  std::vector<int32_t> row_ptr{0, 10};
  for (int p = 1; p < 991; ++p) row_ptr.push_back(row_ptr.back() + 1);
  const HrpbSchedule s = plan_hrpb_schedule(row_ptr, {true, 100});
  CHECK(s.num_virtual_panels == 991);
  CHECK(s.num_split_panels == 0);
  CHECK(s.waves_planned == doctest::Approx(s.waves_unsplit));
}

TEST_CASE("schedule: a heavy panel among few is split along K into consecutive ranges, and waves drop") {
  std::vector<int32_t> row_ptr{0, 400};
  for (int p = 1; p < 50; ++p) row_ptr.push_back(row_ptr.back() + 2);
  const HrpbSchedule s = plan_hrpb_schedule(row_ptr, {true, 1056});
  CHECK(s.num_split_panels == 1);
  CHECK(s.num_virtual_panels > 50);
  CHECK(s.waves_planned < s.waves_unsplit);
  const std::vector<int32_t> panel = s.virtual_panel.to_vector<int32_t>();
  const std::vector<int32_t> ptr = s.virtual_block_ptr.to_vector<int32_t>();
  const std::vector<int32_t> slot = s.virtual_slot.to_vector<int32_t>();
  const int64_t parts = s.num_virtual_panels - 49;
  CHECK(s.split_panel.to_vector<int32_t>() == std::vector<int32_t>{0});
  CHECK(s.split_slot_ptr.to_vector<int32_t>() == std::vector<int32_t>{0, static_cast<int32_t>(parts)});
  CHECK(ptr.front() == 0);
  CHECK(ptr.back() == row_ptr.back());
  for (int64_t v = 0; v < s.num_virtual_panels; ++v) {
    const auto i = static_cast<std::size_t>(v);
    CHECK(ptr[i] <= ptr[i + 1]);
    CHECK(slot[i] == (v < parts ? static_cast<int32_t>(v) : -1));
    CHECK(panel[i] == (v < parts ? 0 : static_cast<int32_t>(v - parts + 1)));
  }
  // Without load balance: one virtual panel per panel.
  CHECK(plan_hrpb_schedule(row_ptr, {false, 1056}).num_virtual_panels == 50);
}

TEST_CASE("schedule rejects a non-positive slot count and a decreasing blocked_row_ptr") {
  CHECK_THROWS_AS(plan_hrpb_schedule({0, 1}, {true, 0}), InvalidArgument);
  CHECK_THROWS_AS(plan_hrpb_schedule({0, 2, 1}, {true, 8}), InvalidArgument);
  CHECK(simulate_in_order({3, 1, 1, 1}, 2) == doctest::Approx(3.0));
}
