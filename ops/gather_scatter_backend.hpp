// Backend entry points of ops/gather_scatter.hpp and ops/edge_endpoints.hpp
// (see ops/backend.hpp). Values are float32 or bfloat16 with rows of
// `width` = numel / rows elements; outputs are preallocated by the caller;
// every tensor is contiguous and on one device. Index values are checked by
// the caller (ops/index_plan.hpp); the kernels still never step outside
// their tensors on a bad one.
#pragma once

#include <cstdint>

#include "core/csr.hpp"
#include "ops/backend.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::ops {

// out[m, :] = x[index[m], :]; index int32 or int64 [M]. A value outside
// [0, rows of x) gives a row of NaN.
void gather_rows_forward(Cpu, const Tensor& x, const Tensor& index, Tensor& out);
void gather_rows_forward(Cuda, const Tensor& x, const Tensor& index, Tensor& out);

// out = 0, then out[index[e], :] += src[e, :] with atomic adds (float32 on
// CUDA; the order of the adds, hence the last bits, vary run to run). A
// value outside [0, rows of out) adds nowhere.
void scatter_sum_atomic(Cuda, const Tensor& src, const Tensor& index, Tensor& out);

// The segments of a reduction: segment s covers positions
// [csr.indptr[s], csr.indptr[s + 1]) (csr.num_rows = S segments, csr.nnz =
// E positions; csr.indices unused), and position p reads src row
// row_map[p] (int32 [E]; undefined: row p). A Csr so that the CUDA kernels
// use its cached launch plan (ops/sparse_plan.hpp) as SpMM does; g-SpMM's
// copy_e passes the adjacency's own csr.
struct Segments {
  Csr csr;
  Tensor row_map;
};

// out[s, :] = reduce over the positions p of segment s, in order, of
// src[row(p), :]; 0 for an empty segment. Sum and Mean add in float (Mean
// divides by the segment's length); Max and Min keep a value of src and,
// in `argument` (int32 [S, width], defined by the caller for Max and Min
// only), the row(p) that won per element (-1 for an empty segment): the
// tie and NaN rules of ops/gather_scatter.hpp, the same on both backends.
void segment_reduce_forward(Cpu, const Segments& segments, ReduceKind reduce, const Tensor& src, Tensor& out,
                            Tensor& argument);
void segment_reduce_forward(Cuda, const Segments& segments, ReduceKind reduce, const Tensor& src, Tensor& out,
                            Tensor& argument);

// The backward of Sum and Mean: grad_src[row(p), :] = grad_out[s, :] for
// every position p of segment s (divided by the segment's length for Mean).
// Rows of grad_src that no position maps to are not written.
void segment_reduce_backward(Cpu, const Segments& segments, ReduceKind reduce, const Tensor& grad_out,
                             Tensor& grad_src);
void segment_reduce_backward(Cuda, const Segments& segments, ReduceKind reduce, const Tensor& grad_out,
                             Tensor& grad_src);

// The backward of Max and Min: grad_src = 0, then grad_src[argument[s, j], j]
// = grad_out[s, j] wherever argument[s, j] ≥ 0 (argument, grad_out: [S, width]).
void segment_argument_backward(Cpu, const Tensor& argument, const Tensor& grad_out, Tensor& grad_src);
void segment_argument_backward(Cuda, const Tensor& argument, const Tensor& grad_out, Tensor& grad_src);

// What the checks need to know about an int32 or int64 tensor of n ≥ 1
// values: their least and largest, the first and last, and how many times
// a value is below the one before it (0: non-decreasing).
struct IndexFacts {
  int64_t min = 0;
  int64_t max = 0;
  int64_t first = 0;
  int64_t last = 0;
  int64_t descents = 0;
};
IndexFacts index_facts(Cpu, const Tensor& index);
IndexFacts index_facts(Cuda, const Tensor& index);

// The stable sort of an index (values in [0, num_outputs), E < 2^31):
// offsets int32 [num_outputs + 1] and order int32 [E], so that the edges e
// with index[e] = n are order[offsets[n] .. offsets[n + 1]), increasing.
void sort_index(Cpu, const Tensor& index, int64_t num_outputs, Tensor& offsets, Tensor& order);
void sort_index(Cuda, const Tensor& index, int64_t num_outputs, Tensor& offsets, Tensor& order);

// rows[p] = the s with offsets[s] ≤ p < offsets[s + 1]: the row of every
// entry of a CSR (offsets int32 or int64 [S + 1], valid; rows int32 [E]).
void expand_offsets(Cpu, const Tensor& offsets, Tensor& rows);
void expand_offsets(Cuda, const Tensor& offsets, Tensor& rows);

}  // namespace sgnn::ops
