// Float64 references of g-SpMM and g-SDDMM (ops/gspmm.hpp, ops/gsddmm.hpp),
// written from their definitions entry by entry, independent of the library's
// broadcasting code; and adjacencies with duplicate entries, which prepare()
// merges but the kernels must take as they come.
#pragma once

#include <cstdint>
#include <vector>

#include "core/adjacency.hpp"
#include "ops/message_passing.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::testing {

// A host tensor's values in float64 with its shape.
struct HostValues {
  std::vector<double> data;
  Shape shape;  // empty: absent
  bool present() const { return !shape.empty(); }
  // Element (item, head, feature) under NumPy broadcasting past the first axis.
  double at(int64_t item, int64_t head, int64_t feature) const;
};
HostValues host_values(const Tensor& tensor);  // an undefined tensor: absent

struct ReferenceResult {
  std::vector<double> values;    // [rows, heads, features] of the broadcast shape
  std::vector<int64_t> winners;  // Max/Min: the winning entry (A's edge order), -1 for empty rows
  int64_t heads = 1;
  int64_t features = 1;
};

ReferenceResult reference_gspmm(const Adjacency& adjacency, ops::MessageKind message, ops::ReduceKind reduce,
                                const HostValues& u, const HostValues& e);
// Dot sums each head's features: values [nnz, heads].
std::vector<double> reference_gsddmm(const Adjacency& adjacency, ops::BinaryKind op, const HostValues& lhs,
                                     ops::Target lhs_target, const HostValues& rhs, ops::Target rhs_target);

// [rows] followed by `features` (an operand's shape from its feature shape).
Shape with_rows(int64_t rows, const Shape& features);
// Uniform in [0.5, 1.5) with every third value negated: both signs, away
// from 0 (a divisor).
Tensor away_from_zero(const Shape& shape, uint64_t seed);

// An adjacency of `nodes` nodes from entries (row, column) in the given
// order, duplicates kept, rows sorted stably: CSR, transpose and edge map.
Adjacency adjacency_from_entries(int64_t nodes, const std::vector<int64_t>& rows, const std::vector<int64_t>& columns);

}  // namespace sgnn::testing
