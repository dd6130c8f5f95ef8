#include <doctest/doctest.h>

#include "ops/sparse_plan.hpp"
#include "ops/sparse_plan_reservation.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("sparse plan: rows by decreasing length, computed once per CSR") {
  Adjacency a = hub_graph(40, 30, 5);
  a.csr.row_order = Tensor();  // the plan must compute the order itself
  const int64_t before = ops::sparse_plans_built();
  const auto plan = ops::sparse_plan(a.csr);
  CHECK(ops::sparse_plans_built() == before + 1);
  CHECK(ops::sparse_plan(a.csr).get() == plan.get());  // cached
  CHECK(ops::sparse_plans_built() == before + 1);
  const std::vector<int32_t> order = plan->row_order.to_vector<int32_t>();
  const std::vector<int64_t> lengths = a.csr.row_lengths();
  CHECK(order.front() == 5);  // the hub row first
  for (std::size_t i = 1; i < order.size(); ++i) {
    const int64_t previous = lengths[static_cast<std::size_t>(order[i - 1])];
    const int64_t current = lengths[static_cast<std::size_t>(order[i])];
    CHECK((previous > current || (previous == current && order[i - 1] < order[i])));
  }
  CHECK(plan->max_row_length == 30);
  CHECK(plan->mean_row_length == doctest::Approx(static_cast<double>(a.nnz()) / 40.0));
  const Adjacency other = random_graph(40, 100, 3);
  CHECK(ops::sparse_plan(other.csr).get() != plan.get());
}

TEST_CASE("sparse plan: the row of every entry on small graphs, none beyond kEntryRowsMaxEntries") {
  for (const Adjacency& graph : {hub_graph(40, 30, 5), random_graph(300, 2000, 8), random_graph(7, 0, 9)}) {
    const auto plan = ops::sparse_plan(graph.csr);
    REQUIRE(plan->entry_row.defined());
    CHECK(plan->entry_row.device() == graph.csr.indptr.device());
    const std::vector<int64_t> expected = edge_coordinates(graph).row;
    const std::vector<int32_t> got = plan->entry_row.to_vector<int32_t>();
    CHECK(std::vector<int64_t>(got.begin(), got.end()) == expected);
  }
  // Over the limit (repeated pairs merge, hence the margin): no entry rows.
  const Adjacency large = random_graph(2000, ops::kEntryRowsMaxEntries + 20000, 10);
  REQUIRE(large.nnz() > ops::kEntryRowsMaxEntries);
  CHECK_FALSE(ops::sparse_plan(large.csr)->entry_row.defined());
}

TEST_CASE("SparsePlanReservation: plans beyond kPlanCacheSize stay cached while it lives") {
  const int64_t extra = 8;
  const int64_t count = static_cast<int64_t>(ops::kPlanCacheSize) + extra;
  std::vector<Adjacency> graphs;
  for (int64_t g = 0; g < count; ++g) graphs.push_back(random_graph(30, 60, 100 + static_cast<uint64_t>(g)));
  const int64_t base = ops::sparse_plan_capacity();
  {
    const ops::SparsePlanReservation room(extra);
    CHECK(ops::sparse_plan_capacity() == base + extra);
    for (const Adjacency& graph : graphs) ops::sparse_plan(graph.csr);
    const int64_t built = ops::sparse_plans_built();
    for (const Adjacency& graph : graphs) ops::sparse_plan(graph.csr);  // every one still cached
    CHECK(ops::sparse_plans_built() == built);
  }
  CHECK(ops::sparse_plan_capacity() == base);
  // Trimmed back: the least recently used of them is built again.
  const int64_t built = ops::sparse_plans_built();
  ops::sparse_plan(graphs.front().csr);
  CHECK(ops::sparse_plans_built() == built + 1);
  CHECK_THROWS_AS(ops::SparsePlanReservation(-1), InvalidArgument);
}
