// The BF16 ops against float64 references, on any device: the CPU tier runs
// them on the host (tests/ops/bf16_ops_test.cpp), the GPU tier on a CUDA
// device (tests/gpu/bf16_ops_test.cpp), with the same bounds.
//
// Each check draws its inputs on the host, rounds them to bfloat16 (so the
// reference sees exactly the values the op sees), runs the op and its
// backward on `device`, and returns the worst ratio of an element's error to
// its bound against a float64 computation from the same bfloat16 values
// (<= 1: every element within its bound). The bounds hold for float
// accumulation in any order (GPU reductions, cuBLAS), with
//   u = 2^-8   bfloat16's unit roundoff: one rounding of a stored result,
//   e = 2^-24  float's unit roundoff: each float operation,
// and are stated beside each check. A bfloat16 result stored where a float32
// one is expected (a weight or bias gradient) breaks them by orders of
// magnitude (u / e = 65536).
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::testing::bf16 {

// cast float32 -> bfloat16: |round(x) − x| <= u·|x|; back to float32 exact;
// the gradient of either cast is the upstream gradient cast back.
double cast_error(Device device);
// a [m,k] · b [k,n] bfloat16, forward and both gradients (bfloat16):
// |c − ref| <= (u + (k + 2)·e) · Σ_p |a_ip||b_pj| (and likewise for dA, dB).
double matmul_error(Device device, int64_t m, int64_t k, int64_t n);
// matmul_weight: bfloat16 x with a float32 weight through its bfloat16 copy.
// Forward and dX as matmul; dW float32: |dW − ref| <= (rows + 2)·e · Σ|x||dY|.
double matmul_weight_error(Device device, int64_t rows, int64_t in, int64_t out);
// add / mul of a bfloat16 [rows, n] and a float32 bias [n]: out within
// (u + 2e)·|ref|; the float32 bias gradients (column sums) within
// (rows + 2)·e·Σ|terms|, the bfloat16 ones within (u + 2e)·|ref|.
double elementwise_error(Device device, int64_t rows, int64_t n);
// relu, elu, leaky_relu on bfloat16, forward and backward (from the stored
// output, as the op does): (u + 8e)·|ref|.
double activation_error(Device device);
// bias_activation (ReLU and ELU) of bfloat16 x and a float32 bias: y and
// grad_x within (u + 8e)·|ref|, the float32 bias gradient within
// (rows + 2)·e·Σ|grad_x| (float accumulation; never rounded to bfloat16).
double bias_activation_error(Device device, int64_t rows, int64_t n);
// softmax and log_softmax on bfloat16 rows of `cols`: forward within
// u·|ref| + (cols + 8)·e·(|ref| + magnitude), backward likewise, magnitude
// being the row's largest |input| (log_softmax's shift and log-sum).
double softmax_error(Device device, int64_t rows, int64_t cols);
// cross_entropy on bfloat16 logits [rows, classes] over a random index: the
// float32 loss within (classes + rows + 8)·e·(|loss| + max|x|), the bfloat16
// gradient within u·|ref| + (classes + 8)·e·(|ref| + weight) per element.
double loss_error(Device device, int64_t rows, int64_t classes);
// sum and mean over an axis of bfloat16 [outer, extent, inner]: the bfloat16
// result within u·|ref| + (extent + 2)·e·Σ|x|; the broadcast gradient within
// (u + 2e)·|ref|.
double reduce_error(Device device, int64_t outer, int64_t extent, int64_t inner);
// edge_softmax of bfloat16 scores [nnz, heads] on `adjacency` (on `device`):
// forward within u·|ref| + (row length + 8)·4e·|ref|, backward within
// u·|ref| + (row length + 8)·4e·Σ_row |out·grad_out| · (1 + |out|).
double edge_softmax_error(const Adjacency& adjacency, int64_t heads);
// sddmm_dot of bfloat16 x [rows, heads, F] and y [cols, heads, F] on
// `adjacency` (on its device; heads 1 runs the [n, F] form): the float32
// output within (F + 2)·e·Σ_f |x·y| (products exact in float, float sums in
// any order, never rounded to bfloat16); the bfloat16 gradients from a
// float32 upstream g (an SpMM in float, rounded once) within
// u·|ref| + (count + 3)·e·Σ|g·y| (dx; count: the row's entries) and likewise
// for dy over the column's entries. A bfloat16 output breaks the forward bound.
double sddmm_dot_error(const Adjacency& adjacency, int64_t heads, int64_t features);
// sddmm_add of bfloat16 x [rows, heads] and y [cols, heads]: the float32
// output within e·|ref| (one float addition); the bfloat16 gradients (row
// and column sums of the float32 upstream, rounded once) within
// u·|ref| + (count + 3)·e·Σ|g|.
double sddmm_add_error(const Adjacency& adjacency, int64_t heads);
// attention_softmax of bfloat16 x [rows, heads] and y [cols, heads] in
// [−2.5, 2.5] (scores within ±5), slope 0.2: the bfloat16 attention within
// u·|ref| + (row length + 8)·4e·11·|ref| (edge_softmax's bound); the scores'
// gradient per entry, from the stored attention, within
// (row length + 8)·4e·|out|·(|grad_out| + Σ_row |out·grad_out|) plus its
// bfloat16 rounding (its "slack"); the bfloat16 x and y gradients (float sums
// of those stored values over the row's or column's entries, rounded once)
// within u·|ref| + slack + (count + 3)·e·(Σ|gradient| + slack). A float32
// attention, or a gradient without LeakyReLU's slope, breaks them.
double attention_softmax_error(const Adjacency& adjacency, int64_t heads);

}  // namespace sgnn::testing::bf16
