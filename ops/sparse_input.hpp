// Products over a matrix's non-zeros: x·W for an x that carries its
// non-zeros (core/sparse_rows.hpp), as g-SpMM of x's pattern,
// out[r] = Σ over x's entries (r, c) of x[r, c]·W[c] (u_mul_e, sum: the
// tuned SpMM), differentiable in W through the pattern's transpose (no
// atomics). Bag-of-words input features are 1-2 % non-zero; a first layer's
// dense product does 50-100x the arithmetic this does.
//
// ops::matmul_weight takes this path where it was measured faster: once per
// (pattern, output width), on a CUDA device outside capture with tuning on
// and not deterministic, both products are timed on the call's own operands
// (ops/kernel_timer.hpp) and the faster recorded in the pattern for every
// later call and every view of it (ops::dropout's output carries the view).
// Elsewhere the dense product runs: on the CPU it already skips zero entries
// of its left operand, and a deterministic run must not depend on a timing.
#pragma once

#include "core/sparse_rows.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

// Attaches x's non-zeros to x (in place: x.set_sparse_rows) where a product
// over them may pay: x float32 [N, F] on a CUDA device with at most a quarter
// of its entries non-zero (the sparse product reads 12 bytes per non-zero,
// index, value and position, against the dense product's 4 per entry, so
// beyond a third it cannot win; core's make_sparse_rows counts). No effect
// otherwise. Returns whether it attached them.
bool attach_sparse_rows(Tensor& x);

// Whether matmul_weight(x, weight) runs over x's non-zeros (above): x
// float32 with sparse_rows on its device, not requiring a gradient, weight
// [F, width]; measures the choice where it has not been made and may be.
bool sparse_product_chosen(const Tensor& x, const Tensor& weight);

// x·weight over `rows` (x's non-zeros), weight float32 [F, width] on their
// device -> float32 [N, width], differentiable in weight. InvalidArgument on
// a shape or device mismatch.
Tensor sparse_rows_product(const SparseRows& rows, const Tensor& weight);

}  // namespace sgnn::ops
