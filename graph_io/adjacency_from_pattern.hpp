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
// or options.device; the caller checks all this, e.g. with
// check_sorted_pattern). weights: undefined, or [nnz] float32 in the
// pattern's order — the merged edge weights before normalisation (or, with
// Normalization::None, the final values themselves). Of `options`:
// normalization, device (where the result lives), edge_map and
// symmetric_scale. On a CUDA device, A's arrays are the pattern's own
// tensors (shared).
Adjacency adjacency_from_pattern(const Csr& pattern, const Tensor& weights, const PrepareOptions& options);

// The weights of A (of Aᵀ with `transpose`) as nnz float32 values on the
// adjacency's device: adjacency.values (transpose_values), or the values its
// symmetric_scale stands for, computed now (bitwise those prepare would
// store); undefined for an unweighted adjacency. For consumers that need the
// values themselves (the HRPB layout).
Tensor stored_weights(const Adjacency& adjacency, bool transpose = false);

// Throws IoError(where, 0, reason) unless `pattern` is a square CSR whose
// rows are sorted, duplicate-free and in range (host tensors: parallel
// threads; CUDA tensors: a kernel, no host pass).
void check_sorted_pattern(const Csr& pattern, const std::string& where);

// Checks of derived arrays read from a file, against a pattern that passed
// check_sorted_pattern (host tensors, one parallel pass each). Throw
// IoError(where, 0, reason) unless
//   check_row_order      `order` is the row order prepare gives `csr` (int32
//                        [num_rows]: rows by decreasing length, ties by row id);
//   check_transpose_map  `transpose` (a sorted pattern too) has csr's nnz and
//                        `map` ([nnz], csr_offset_dtype) sends each of its
//                        entries (c, r) to entry (r, c) of `csr`: then
//                        `transpose` is Aᵀ and `map` its transpose_to_csr.
void check_row_order(const Csr& csr, const Tensor& order, const std::string& where);
void check_transpose_map(const Csr& csr, const Csr& transpose, const Tensor& map, const std::string& where);

}  // namespace sgnn::graph_io
