// Exact comparison of two Adjacency values (patterns, maps, values, row orders).
#pragma once

#include <doctest/doctest.h>

#include "core/adjacency.hpp"

namespace sgnn::testing {

inline std::vector<int64_t> as_int64(const Tensor& t) {
  if (!t.defined()) return {};
  if (t.dtype() == DType::Int64) return t.to_vector<int64_t>();
  const std::vector<int32_t> narrow = t.to_vector<int32_t>();
  return {narrow.begin(), narrow.end()};
}

inline void check_same_csr(const Csr& a, const Csr& b) {
  CHECK(a.num_rows == b.num_rows);
  CHECK(a.num_cols == b.num_cols);
  CHECK(a.nnz == b.nnz);
  CHECK(a.indptr.dtype() == b.indptr.dtype());
  CHECK(as_int64(a.indptr) == as_int64(b.indptr));
  CHECK(as_int64(a.indices) == as_int64(b.indices));
  CHECK(a.row_order.defined() == b.row_order.defined());
  CHECK(as_int64(a.row_order) == as_int64(b.row_order));
}

// Bitwise-equal values (NaN-free inputs): the same computation, not a tolerance.
inline void check_same_adjacency(const Adjacency& a, const Adjacency& b) {
  check_same_csr(a.csr, b.csr);
  check_same_csr(a.transpose, b.transpose);
  CHECK(a.transpose_to_csr.dtype() == b.transpose_to_csr.dtype());
  CHECK(as_int64(a.transpose_to_csr) == as_int64(b.transpose_to_csr));
  CHECK(as_int64(a.symmetric_scale) == as_int64(b.symmetric_scale));  // float64 bits
  REQUIRE(a.values.defined() == b.values.defined());
  if (a.values.defined()) {
    CHECK(a.values.to_vector<float>() == b.values.to_vector<float>());
    CHECK(a.transpose_values.to_vector<float>() == b.transpose_values.to_vector<float>());
  }
}

}  // namespace sgnn::testing
