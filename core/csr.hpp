// Csr: the pattern of a sparse matrix in compressed sparse row form, on one
// device. Values are kept apart (see Adjacency) because the same pattern
// carries fixed GCN weights, learned GAT attention, or nothing.
//
//   indptr    [num_rows + 1]  int32 when nnz < 2^31, else int64; indptr[0] = 0,
//                             non-decreasing, indptr[num_rows] = nnz
//   indices   [nnz]           int32 column of each entry; sorted, no duplicates
//                             within a row
//   row_order [num_rows]      int32, optional: rows by decreasing length, ties by
//                             row id (the SpMM row swizzle, computed once)
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn {

// The index type a CSR with `nnz` entries uses for offsets and edge ids.
constexpr DType csr_offset_dtype(int64_t nnz) {
  return nnz < (int64_t{1} << 31) ? DType::Int32 : DType::Int64;
}

struct Csr {
  int64_t num_rows = 0;
  int64_t num_cols = 0;
  int64_t nnz = 0;
  Tensor indptr;
  Tensor indices;
  Tensor row_order;

  Device device() const { return indptr.device(); }
  Csr to(Device device) const;
  // Checks every invariant above (on a host copy). Throws InvalidArgument
  // naming the first violation.
  void validate() const;
  // Row lengths on the host (for statistics and launch plans).
  std::vector<int64_t> row_lengths() const;
};

}  // namespace sgnn
