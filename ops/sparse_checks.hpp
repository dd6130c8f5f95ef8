// Argument checks shared by the sparse ops (spmm, sddmm, edge_softmax): every
// message names the op, the argument, what was expected and what came.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

// The adjacency has a CSR (indptr of the right offset dtype, indices int32).
void check_adjacency(const Adjacency& adjacency, const char* op);
// The adjacency can run a backward pass on Aᵀ: the transpose is present,
// and so is the edge map when the pass moves per-edge tensors into Aᵀ's
// order (`moves_edge_tensors`; an adjacency prepared with
// PrepareOptions::edge_map off has none).
void check_transpose(const Adjacency& adjacency, const char* op, bool moves_edge_tensors = true);
// A dense operand of SpMM or SDDMM: float32 or bfloat16, on the adjacency's
// device, its first axis `rows`.
void check_dense_operand(const Tensor& tensor, const Adjacency& adjacency, int64_t rows, const char* op,
                         const char* argument);
// A per-edge tensor: float32 or bfloat16, on the adjacency's device, [nnz] or [nnz, H].
// Returns H (1 for [nnz]).
int64_t check_edge_tensor(const Tensor& tensor, const Adjacency& adjacency, const char* op, const char* argument);
// The adjacency, x [n_rows, ...] and y [n_cols, ...]: dense operands of one dtype.
void check_dense_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op);
// x [n_rows, H] and y [n_cols, H] of a per-edge sum x[row(e)] + y[col(e)]
// (sddmm_add, attention_softmax): dense operands of one dtype. Returns H.
int64_t check_edge_sum_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op);

}  // namespace sgnn::ops
