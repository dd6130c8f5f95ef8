// Softmax over the entries of each row of an Adjacency (GAT attention):
//   out[e, h] = exp(s[e, h] − max_row) / Σ_{e' in row(e)} exp(s[e', h] − max_row)
// scores [nnz] or [nnz, H] float32 in A's edge order, on A's device -> same
// shape. Stable (the row maximum is subtracted); rows without entries give
// nothing and are fine. Differentiable in scores. Bad input -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor edge_softmax(const Adjacency& adjacency, const Tensor& scores);

}  // namespace sgnn::ops
