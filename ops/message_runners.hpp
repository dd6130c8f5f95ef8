// Helpers shared by g-SpMM and g-SDDMM (ops/gspmm.cpp, ops/gsddmm.cpp) and
// their backward passes: no argument checks (the public ops check), no autograd.
#pragma once

#include "core/adjacency.hpp"
#include "ops/gspmm_backend.hpp"

namespace sgnn::ops::detail {

// The generalized g-SpMM kernel on `csr` into a fresh [num_rows] + feature_shape
// tensor of `dtype`; `argument` gets Max/Min's winners (undefined otherwise).
Tensor run_gspmm(const Csr& csr, const GspmmOperands& operands, const Shape& feature_shape, DType dtype,
                 Tensor& argument);

// Σ over the entries of each node's edges of the edge tensor g [nnz, ...]:
// per destination (V: the rows of A), per source (U: the rows of Aᵀ, read
// through transpose_to_csr), or g itself (E). Float sums, g's dtype.
Tensor edges_to_nodes(const Adjacency& adjacency, const Tensor& g, Target target);

// Σ over the edges out of each source u of message(x[v], e[k]) (Sum): g-SpMM
// on Aᵀ with A's edge tensor e read through transpose_to_csr. x [n_rows, ...]
// and e [nnz, ...] broadcast; returns [n_cols] + the broadcast feature shape
// in x's dtype.
Tensor gspmm_on_transpose(const Adjacency& adjacency, MessageKind message, const Tensor& x, const Tensor& e);

// g [n, ...] summed over the axes `shape` broadcasts (NumPy rules past the
// first axis), reshaped to [n] + shape's feature axes.
Tensor sum_to_shape(const Tensor& g, const Shape& shape);

// [n, ...] with n = shape[0] and shape's extents past the first axis.
Shape with_rows(int64_t rows, const Shape& feature_shape);

// The feature shape of x (its shape past the first axis).
Shape feature_shape_of(const Tensor& x);

}  // namespace sgnn::ops::detail
