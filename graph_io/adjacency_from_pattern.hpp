// The Adjacency prepare_adjacency made, rebuilt from its CSR pattern alone:
// what the adjacency cache stores (the costly part of preparing: sorting,
// merging duplicates, symmetrising, self loops), with everything cheap
// (row orders, the transpose and its edge map, normalised values) derived
// again by the same code as prepare_adjacency, so the result is bitwise equal.
#pragma once

#include "core/adjacency.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

// pattern: num_rows == num_cols, indptr [n+1] of csr_offset_dtype(nnz),
// indices [nnz] int32, rows sorted by column without repeats, ids < n (host
// or `device`; the caller checks all this, e.g. with check_sorted_pattern).
// weights: undefined, or [nnz] float32 in the pattern's order — the merged
// edge weights before normalisation (or, with Normalization::None, the final
// values themselves). The result lives on `device`; it has
// transpose_to_csr only with `edge_map` (PrepareOptions::edge_map). On a
// CUDA device, A's arrays are the pattern's own tensors (shared).
Adjacency adjacency_from_pattern(const Csr& pattern, const Tensor& weights, Normalization normalization,
                                 Device device, bool edge_map = true);

// Throws IoError(where, 0, reason) unless `pattern` is a square CSR whose
// rows are sorted, duplicate-free and in range (host tensors: parallel
// threads; CUDA tensors: a kernel, no host pass).
void check_sorted_pattern(const Csr& pattern, const std::string& where);

}  // namespace sgnn::graph_io
