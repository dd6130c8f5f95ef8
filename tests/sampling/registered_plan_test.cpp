#include <doctest/doctest.h>

#include "ops/sparse_plan.hpp"
#include "sampling_graphs.hpp"

TEST_CASE("ops::register_sparse_plan: sparse_plan returns the registered plan, a later one replaces it, nothing is built") {
  using namespace sgnn;
  const Csr csr = sgnn::testing::csr_of(sgnn::testing::random_lists(50, 20, 2, 3, 41));
  auto first = std::make_shared<ops::SparsePlan>();
  first->indptr = csr.indptr;
  first->num_rows = csr.num_rows;
  first->nnz = csr.nnz;
  first->segment_length = 16;
  auto second = std::make_shared<ops::SparsePlan>(*first);
  second->segment_length = 32;
  const int64_t built = ops::sparse_plans_built();
  ops::register_sparse_plan(first);
  CHECK(ops::sparse_plan(csr).get() == first.get());
  ops::register_sparse_plan(second);  // the same indptr: the stale plan goes
  CHECK(ops::sparse_plan(csr).get() == second.get());
  CHECK(first.use_count() == 1);  // the cache let go of it
  CHECK(ops::sparse_plans_built() == built);
  CHECK_THROWS_AS(ops::register_sparse_plan(std::make_shared<ops::SparsePlan>()), InvalidArgument);
}
