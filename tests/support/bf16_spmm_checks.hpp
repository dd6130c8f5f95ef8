// The bfloat16 SpMM against float64 references on any device (the CPU tier
// in tests/ops/sparse_spmm_test.cpp, the GPU tier in tests/gpu/bf16_test.cpp),
// with the bounds below, and a bfloat16 ulp distance for comparing backends.
//
// The inputs are drawn on the host and rounded to bfloat16 first (edge
// values stay float32 unless bfloat16 is asked for), so the reference sees
// exactly the values the op sees. With u = 2^-8 (one bfloat16 rounding) and
// e = 2^-24 (one float operation), a float sum of n products in any order
// rounded once to bfloat16 is within
//   u·|ref| + (n + 2)·e·Σ|terms|
// of the float64 sum: (n − 1) additions and one product each cost at most
// e·Σ|terms|, the final rounding u·|float sum| ≤ u·|ref| + u·(n + 1)·e·Σ|terms|,
// and the slack of one e·Σ|terms| covers that u·(n + 1)·e term. A skipped
// entry (error |term|) or a truncating rounding (error up to 2u·|ref|)
// exceeds it.
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::testing::bf16 {

enum class SpmmWeights { Pattern, Float32, BFloat16 };

// ops::spmm(adjacency, v, b) with b bfloat16 [n_cols, F] (heads == 1) or
// [n_cols, heads, F], v [nnz] or [nnz, heads] (undefined for Pattern, which
// needs heads == 1), on adjacency's device, then backward from a random
// bfloat16 dC. Worst error / bound (≤ 1 passes; a wrong dtype is +inf) over
//   C   bfloat16, u·|ref| + (row entries + 2)·e·Σ|v||b|
//   dB  bfloat16, u·|ref| + (column entries + 2)·e·Σ|v||dC|
//   dv  float32 (F + 2)·e·Σ|dC||b|, plus u·|ref| when v is bfloat16 (the
//       gradient comes back through the widening cast, rounded once).
double spmm_error(const Adjacency& adjacency, int64_t heads, int64_t features, SpmmWeights weights, uint64_t seed);

// Two backends' bfloat16 SpMM of the same inputs (c = A·b, per-head values
// [nnz · heads] or undefined, host tensors of shape [rows, heads · F]):
// both are float sums of the same products, each within (n + 2)·e·Σ|v||b|
// of the exact sum, in different orders (the GPU fuses multiply-adds and
// sums split rows in segments), so before rounding they differ by at most
// twice that, and rounding moves them apart by at most one bfloat16 ulp
// more. Returns the worst |got − expected| / (ulp + 2·(n + 2)·e·Σ|v||b|)
// (≤ 1 passes; NaN, another dtype or shape: +inf). Under cancellation
// (Σ|v||b| ≫ |c|) the float sums may differ by many ulps of c; without it,
// by at most one or two.
double backend_gap(const Adjacency& adjacency, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                   const Tensor& got, const Tensor& expected);

// The largest distance in bfloat16 ulps between same-shaped bfloat16
// tensors (adjacent representable values are 1 apart; +0 and −0 are 0
// apart); NaN in either, or another dtype or shape, gives INT64_MAX.
int64_t max_ulp_distance(const Tensor& a, const Tensor& b);

}  // namespace sgnn::testing::bf16
