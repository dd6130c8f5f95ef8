// SparseRows: the non-zero entries of a dense float32 matrix X [N, F], kept
// beside it (Tensor::sparse_rows) so that a product X·W can run over the
// non-zeros instead of all N·F entries: bag-of-words node features are 1-2 %
// non-zero (Citeseer 0.85 %, Cora 1.27 %), and a first layer's dense product
// does 100x the arithmetic it needs. ops::matmul_weight takes that path where
// it measured it faster (ops/sparse_input.hpp); ops::dropout carries the view
// to its output, masking the same elements. make_sparse_rows builds it;
// ops::attach_sparse_rows decides where to.
//
//   SparsePattern::matrix     X's non-zeros as an N x F Adjacency: csr,
//                             transpose and transpose_to_csr (no values: a
//                             SparseRows holds its own)
//   SparsePattern::positions  int64 [nnz]: r·F + c of CSR entry k, the entry's
//                             element index in X (dropout's draw index)
//   SparseRows::values        float32 [nnz] in CSR order: X's values at the
//                             pattern's entries, on the pattern's device
// The tensor a view is attached to must not be modified afterwards.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "core/adjacency.hpp"

namespace sgnn {

class SparsePattern {
 public:
  SparsePattern(Adjacency matrix, Tensor positions) : matrix_(std::move(matrix)), positions_(std::move(positions)) {}
  const Adjacency& matrix() const { return matrix_; }
  const Tensor& positions() const { return positions_; }
  int64_t nnz() const { return matrix_.nnz(); }

  // Whether the product over the non-zeros was measured faster at this output
  // width (ops/sparse_input.hpp decides and records; nullopt: not yet). Shared
  // by every view of the pattern. Thread safe.
  std::optional<bool> sparse_product_faster(int64_t width) const;
  void record_sparse_product_faster(int64_t width, bool faster) const;

 private:
  Adjacency matrix_;
  Tensor positions_;
  mutable std::mutex mutex_;
  mutable std::map<int64_t, bool> faster_by_width_;
};

struct SparseRows {
  std::shared_ptr<const SparsePattern> pattern;
  Tensor values;
};

// X's non-zeros, on X's device (X float32 [N, F] on any device, read once on
// the host). Null where more than max_fraction of X's entries are non-zero:
// estimated first from 64 evenly spaced rows (so a dense X costs 64 row
// copies, not a pass over it), then counted; also null for nnz >= 2^31 or an
// empty X. InvalidArgument for another dtype or rank.
std::shared_ptr<const SparseRows> make_sparse_rows(const Tensor& x, double max_fraction);

}  // namespace sgnn
