// A rectangular Adjacency (a rank's row block) built on the host from CSR
// arrays: the CSR itself, its transpose by a counting sort over columns
// (rows stay sorted within each transpose row, no atomics), the edge map
// transpose_to_csr, values in both orders, and both row orders, so ops::spmm
// and its backward run on it like on a prepared graph.
#pragma once

#include <cstdint>
#include <vector>

#include "core/adjacency.hpp"

namespace sgnn::distributed {

struct HostCsr {
  int64_t num_rows = 0;
  int64_t num_cols = 0;
  std::vector<int64_t> indptr;   // [num_rows + 1]
  std::vector<int32_t> indices;  // [nnz], sorted within each row
  std::vector<float> values;     // [nnz] or empty (pattern only)
};

// A host copy of `csr` (any device) with `values` ([nnz] or undefined).
HostCsr host_csr(const Csr& csr, const Tensor& values);

// The Adjacency of `csr` on the host; offsets int32 or int64 by nnz as the
// library's Csr requires. InvalidArgument when the arrays are inconsistent.
Adjacency make_adjacency(const HostCsr& csr);

}  // namespace sgnn::distributed
