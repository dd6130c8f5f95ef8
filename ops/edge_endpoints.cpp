#include "ops/edge_endpoints.hpp"

#include <mutex>

#include "ops/gather_scatter_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

Tensor edge_sources(const Adjacency& adjacency) {
  check_adjacency(adjacency, "edge_sources");
  return adjacency.csr.indices;
}

Tensor edge_destinations(const Adjacency& adjacency) {
  check_adjacency(adjacency, "edge_destinations");
  SGNN_CHECK(adjacency.num_rows() < (int64_t{1} << 31), "edge_destinations: ", adjacency.num_rows(),
             " rows do not fit the int32 rows it returns");
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(adjacency.csr);
  if (plan->entry_row.defined()) return plan->entry_row;
  LazyTensor& rows = *plan->all_entry_rows;
  std::lock_guard<std::mutex> lock(rows.mutex);
  if (!rows.tensor.defined()) {
    Tensor computed = Tensor::empty({adjacency.nnz()}, DType::Int32, adjacency.device());
    SGNN_DISPATCH(adjacency.device(), expand_offsets, adjacency.csr.indptr, computed);
    rows.tensor = computed;
  }
  return rows.tensor;
}

}  // namespace sgnn::ops
