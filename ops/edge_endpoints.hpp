// The endpoints of an Adjacency's entries, for message functions written
// with ops/gather_scatter.hpp. Row i of A lists the in-neighbours of node i:
// entry e of row i is the edge col(e) -> i, so
//   x_j = gather_rows(x, edge_sources(A))        the source of every edge
//   x_i = gather_rows(x, edge_destinations(A))   its destination
// and a message m [nnz, ...] in A's edge order is aggregated onto the
// destinations by segment_reduce(m, A.csr.indptr, reduce) (PyG's
// message(x_i, x_j, e_ij) then aggr). Both are int32 [nnz] on A's device,
// not differentiable.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

// A.csr.indices itself (shared, no copy).
Tensor edge_sources(const Adjacency& adjacency);

// The row of every entry, computed on A's device on the first call for this
// CSR and then kept with its launch plan (ops/sparse_plan.hpp): later calls
// return the same tensor, so its index check is cached too.
Tensor edge_destinations(const Adjacency& adjacency);

}  // namespace sgnn::ops
