// Gather and scatter: node rows onto edges, edge rows back onto nodes, and
// the reductions of runs of consecutive rows. With ops/edge_endpoints.hpp they
// write any message function (PyG's message(x_i, x_j, e_ij), DGL's
// apply_edges) and any aggregation g-SpMM does not fuse (pooling, custom).
//
// Common contract:
//   values  float32 or bfloat16, any rank ≥ 1; axis 0 is the one indexed,
//           the trailing axes ("a row") are carried along: [N], [N, D],
//           [N, H, D]. Computed in float, each output rounded once to the
//           input's dtype; the gradient has the input's dtype.
//   index   int32 or int64 [M] (1-D), on the values' device.
//   reduce  ops/reduce_kind.hpp: Sum, Mean, Max, Min; an output row that
//           receives nothing is 0 (and gets no gradient back). Max and Min
//           remember the winning row per element (int32: at most 2^31 - 1
//           rows in); backward sends each output's gradient to that row only.
//           Among equal values the lowest row (the lowest edge index)
//           wins, on the CPU and on CUDA alike. A NaN wins over any number
//           (the first NaN), as torch.amax propagates it.
// Differentiable in the values (indices and offsets are not).
//
// Index checks. Out-of-range indices and malformed offsets are an
// InvalidArgument naming the op, the argument, the bad value and the
// bound. On the CPU every call checks. On CUDA an index or offsets tensor is
// checked once, the first time these ops see it (one small reduction and a
// wait for the stream), and its range is remembered with the tensor
// (ops/index_plan.hpp), so the same edge index used every step costs no
// synchronisation after the first; a tensor must therefore not be modified
// in place once used. A tensor first met inside a CUDA Graph capture cannot
// be checked (no waiting there): the kernels still never read or write out
// of bounds (an out-of-range row gathers NaN, scatters nowhere).
//
// Determinism. segment_reduce and every reduction but float32 Sum scatter
// are bit-reproducible (fixed order, no atomics). float32 Sum scatter and
// gather_rows' backward (a Sum scatter) add with atomics on CUDA (not
// bit-reproducible) unless ops::set_deterministic(true) (ops/determinism.hpp),
// which sends them through the sorted path below. The sorted path (CUDA:
// scatter Mean/Max/Min, bfloat16 Sum, deterministic Sum): the index is
// stably sorted once per (index tensor, num_outputs) and cached beside its
// checked range, then reduced as segments of a CSR; the first call with an
// index tensor pays the sort.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::ops {

// out[m, ...] = x[index[m], ...] (torch.index_select on axis 0, PyG's x[index]).
//   x [N, ...], index [M] with values in [0, N) -> [M, ...], x's dtype.
// Backward: the gradient rows summed into [N, ...] (a Sum scatter).
Tensor gather_rows(const Tensor& x, const Tensor& index);

// out[n, ...] = reduce over {e : index[e] = n} of src[e, ...]
// (torch_geometric.utils.scatter(src, index, 0, num_outputs, reduce)).
//   src [E, ...], index [E] with values in [0, num_outputs), num_outputs
//   in [0, 2^31) -> [num_outputs, ...], src's dtype. Sum and Mean add in
//   float in a fixed order (the CPU: increasing edge order; CUDA: see
//   segment_reduce), except float32 Sum with atomics (above). The sorted
//   path needs E < 2^31.
// Backward: Sum gathers the gradient; Mean gathers it divided by the row's
// count; Max and Min send it to the winning edge.
Tensor scatter(const Tensor& src, const Tensor& index, int64_t num_outputs, ReduceKind reduce);

// out[s, ...] = reduce over e in [offsets[s], offsets[s + 1]) of src[e, ...]
// (PyG's segment_csr; g-SpMM's copy_e over A.csr.indptr).
//   src [E, ...]; offsets int32 or int64 [S + 1], non-decreasing, from 0 to
//   E, on src's device -> [S, ...], src's dtype. No atomics: deterministic.
// Backward like scatter's. On CUDA the work is cut as SpMM's is (the
// launch plan of ops/sparse_plan.hpp, cached per offsets tensor: segments
// longer than the plan's segment length, 128-1024 rows, are split and
// their partials combined in a fixed order), so one segment of 100,000
// rows spreads over the GPU; the sums of a piece run over interleaved
// lanes, combined by a fixed tree (ops/cuda/segment_reduce.cu). Workspace:
// Max and Min keep an int32 [S, ...] of winning rows until backward; split
// segments take float [pieces, ...] partials during the call.
// g-SpMM's copy_e is segment_reduce(w_e, A.csr.indptr, reduce).
Tensor segment_reduce(const Tensor& src, const Tensor& offsets, ReduceKind reduce);

}  // namespace sgnn::ops
