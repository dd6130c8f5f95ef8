// Backend entry points of ops/edge_softmax.hpp and ops/attention_softmax.hpp
// (see ops/backend.hpp).
// Per-edge tensors are [nnz · heads] in A's edge order; outputs preallocated.
#pragma once

#include "core/csr.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// out = softmax of scores over each row's entries, per head, max subtracted.
void edge_softmax_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out);
void edge_softmax_forward(Cuda, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out);

// grad_scores[e, h] = out[e, h] · (grad_out[e, h] − Σ_{e' in row(e)} out[e', h] · grad_out[e', h])
void edge_softmax_backward(Cpu, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores);
void edge_softmax_backward(Cuda, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores);

// out[e, h] = softmax over row(e) of s[e, h] = leaky_relu(x[row(e), h] + y[col(e), h]),
// x and y float32 or bfloat16 [n, heads]; out in x's dtype (computed in float, rounded once).
void attention_softmax_forward(Cpu, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                               const Tensor& y, Tensor& out);
void attention_softmax_forward(Cuda, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                               const Tensor& y, Tensor& out);

// grad_sums[e, h]: the gradient of x[row(e), h] + y[col(e), h], the edge softmax's backward
// times LeakyReLU's derivative at the recomputed score; out, grad_out and grad_sums in x's dtype.
void attention_softmax_backward(Cpu, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                                const Tensor& y, const Tensor& out, const Tensor& grad_out, Tensor& grad_sums);
void attention_softmax_backward(Cuda, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                                const Tensor& y, const Tensor& out, const Tensor& grad_out, Tensor& grad_sums);

}  // namespace sgnn::ops
