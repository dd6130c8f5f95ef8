#include <doctest/doctest.h>

#include "core/error.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::SddmmPath;

namespace {

// ≈ 300 entries a row and enough entries (1.2M) that segments stay long
// (ops::choose_segment_length shortens them on small graphs): 256-entry
// segments, a mean of ≈ 150.
Adjacency long_rows_graph(uint64_t seed) { return random_graph(4000, 1200000, seed); }

}  // namespace

TEST_CASE("sddmm path: small graphs by width (edges, dense rows, segments), large ones by row length") {
  REQUIRE(ops::forced_sddmm_path() == SddmmPath::Auto);
  const Adjacency long_rows = long_rows_graph(21);
  const auto long_plan = ops::sparse_plan(long_rows.csr);
  CHECK(long_plan->mean_segment_length ==
        doctest::Approx(static_cast<double>(long_rows.nnz()) / static_cast<double>(long_plan->segments)));
  CHECK(long_plan->mean_segment_length >= ops::kDenseRowsMinMeanSegment);
  for (int64_t features : {int64_t{1}, int64_t{3}, int64_t{64}, int64_t{257}, ops::kDenseRowsMaxFeatures}) {
    CHECK(ops::choose_sddmm_path(*long_plan, features) == SddmmPath::DenseRows);
  }
  // Wider than the dense-row kernel's registers: segments.
  CHECK(ops::choose_sddmm_path(*long_plan, ops::kDenseRowsMaxFeatures + 1) == SddmmPath::Segments);

  // Small graphs (entry rows in the plan): Edges up to kEdgesMaxFeatures,
  // DenseRows up to kSmallGraphDenseRowsMaxFeatures, then Segments, though
  // their segments are short.
  const Adjacency short_rows = random_graph(1000, 9000, 22);  // ≈ 9 a row
  // One hub row of 5000 among rows of ≤ 1.
  const Adjacency hub = hub_graph(6000, 5000, 7);
  for (const Adjacency* small : {&short_rows, &hub}) {
    const auto plan = ops::sparse_plan(small->csr);
    REQUIRE(plan->entry_row.defined());
    for (int64_t features : {int64_t{1}, int64_t{3}, int64_t{17}, ops::kEdgesMaxFeatures}) {
      CHECK(ops::choose_sddmm_path(*plan, features) == SddmmPath::Edges);
    }
    CHECK(ops::choose_sddmm_path(*plan, ops::kEdgesMaxFeatures + 1) == SddmmPath::DenseRows);
    CHECK(ops::choose_sddmm_path(*plan, ops::kSmallGraphDenseRowsMaxFeatures) == SddmmPath::DenseRows);
    CHECK(ops::choose_sddmm_path(*plan, ops::kSmallGraphDenseRowsMaxFeatures + 1) == SddmmPath::Segments);
    CHECK(ops::choose_sddmm_path(*plan, 0) == SddmmPath::Segments);
  }
  // Short rows on a graph too large for entry rows: Segments.
  const auto medium_plan = ops::sparse_plan(random_graph(100000, 400000, 25).csr);
  REQUIRE_FALSE(medium_plan->entry_row.defined());
  CHECK(ops::choose_sddmm_path(*medium_plan, 16) == SddmmPath::Segments);
}

TEST_CASE("sddmm path: forcing overrides the plan where the kernel exists, Auto restores it") {
  const auto short_plan = ops::sparse_plan(random_graph(1000, 9000, 23).csr);
  const auto long_plan = ops::sparse_plan(long_rows_graph(24).csr);
  {
    const ops::ScopedSddmmPath forced(SddmmPath::DenseRows);
    CHECK(ops::forced_sddmm_path() == SddmmPath::DenseRows);
    CHECK(ops::choose_sddmm_path(*short_plan, 17) == SddmmPath::DenseRows);
    CHECK(ops::choose_sddmm_path(*short_plan, ops::kDenseRowsMaxFeatures + 1) == SddmmPath::Segments);
  }
  {
    // Edges exists at any width where the plan has entry rows, not elsewhere.
    const ops::ScopedSddmmPath forced(SddmmPath::Edges);
    CHECK(ops::choose_sddmm_path(*short_plan, 17) == SddmmPath::Edges);
    CHECK(ops::choose_sddmm_path(*short_plan, ops::kDenseRowsMaxFeatures + 1) == SddmmPath::Edges);
    CHECK(ops::choose_sddmm_path(*long_plan, 17) == SddmmPath::Segments);
  }
  {
    const ops::ScopedSddmmPath forced(SddmmPath::Segments);
    CHECK(ops::choose_sddmm_path(*long_plan, 17) == SddmmPath::Segments);
    {
      const ops::ScopedSddmmPath inner(SddmmPath::DenseRows);
      CHECK(ops::choose_sddmm_path(*long_plan, 17) == SddmmPath::DenseRows);
    }
    CHECK(ops::forced_sddmm_path() == SddmmPath::Segments);  // the outer choice is back
  }
  CHECK(ops::forced_sddmm_path() == SddmmPath::Auto);
  CHECK(ops::choose_sddmm_path(*long_plan, 17) == SddmmPath::DenseRows);
  CHECK(ops::choose_sddmm_path(*short_plan, 17) == SddmmPath::Edges);
  CHECK(ops::choose_sddmm_path(*short_plan, 100) == SddmmPath::DenseRows);
  CHECK(ops::choose_sddmm_path(*short_plan, 200) == SddmmPath::Segments);
}

TEST_CASE("sddmm path: names round-trip, unknown names are refused") {
  for (SddmmPath path : {SddmmPath::Auto, SddmmPath::Segments, SddmmPath::DenseRows, SddmmPath::Edges}) {
    CHECK(ops::parse_sddmm_path(ops::sddmm_path_name(path)) == path);
  }
  CHECK(ops::sddmm_path_name(SddmmPath::DenseRows) == "dense-rows");
  CHECK(ops::sddmm_path_name(SddmmPath::Edges) == "edges");
  CHECK_THROWS_AS(ops::parse_sddmm_path("dense"), InvalidArgument);
  CHECK_THROWS_AS(ops::parse_sddmm_path(""), InvalidArgument);
}
