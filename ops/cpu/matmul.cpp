// Cache-blocked GEMM for the CPU backend.
//
// C [m,n] = op(A) · B with B [k,n] row-major. op(A) is read through strides,
// so Aᵀ (the weight gradient Xᵀ·dC, X being the large feature matrix) needs no
// copy: a row tile × K panel of A is 32 KiB and stays in cache either way. A
// transposed B (dA = dC·Bᵀ, B a small weight) is copied into row-major order
// first, since the innermost loop must run along a contiguous row of B.
// Rows of C are split among threads in tiles; for each tile a panel of K and
// a panel of N are walked so that the B panel (kKPanel × kNPanel floats =
// 256 KiB) stays in L2 while the innermost loop streams one row of it into
// one row of C with SIMD. bfloat16 operands are widened to float first (exact)
// and a bfloat16 C is rounded once from the float result: the rounding
// points of cuBLAS's BF16 GEMM with float accumulation.
#include <algorithm>
#include <vector>

#include "ops/matmul_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kRowTile = 32;
constexpr int64_t kKPanel = 256;
constexpr int64_t kNPanel = 256;

// Row-major copy of tᵀ for t of rows × cols floats.
std::vector<float> transposed_copy(const float* in, int64_t rows, int64_t cols) {
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
#pragma omp parallel for if (rows * cols > 65536)
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) out[static_cast<std::size_t>(c * rows + r)] = in[r * cols + c];
  }
  return out;
}

// The elements of a bfloat16 tensor as floats (exact).
std::vector<float> widened(const Tensor& t) {
  const int64_t n = t.numel();
  std::vector<float> out(static_cast<std::size_t>(n));
  const bfloat16* in = t.data<bfloat16>();
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = in[i].to_float();
  return out;
}

// c_row[j] += a · b_row[j] for j in [j0, j1). A zero `a` is skipped, as the
// reference BLAS sgemm does: bag-of-words features (Cora, Citeseer) are ~99 %
// zeros, and skipping them makes X·W and Xᵀ·dC an order of magnitude faster.
inline void axpy(float a, const float* __restrict__ b_row, float* __restrict__ c_row, int64_t j0, int64_t j1) {
  if (a == 0.0f) return;
#pragma omp simd
  for (int64_t j = j0; j < j1; ++j) c_row[j] += a * b_row[j];
}

// op(A)[i, p] = a[i · a_row_stride + p · a_column_stride], with one of the
// strides 1.
void gemm(const float* a, int64_t a_row_stride, int64_t a_column_stride, const float* b, float* c, int64_t m,
          int64_t k, int64_t n) {
  const int64_t row_tiles = (m + kRowTile - 1) / kRowTile;
#pragma omp parallel for schedule(dynamic) if (m * n * k > 32768)
  for (int64_t tile = 0; tile < row_tiles; ++tile) {
    const int64_t row_begin = tile * kRowTile;
    const int64_t row_end = std::min(m, row_begin + kRowTile);
    for (int64_t i = row_begin; i < row_end; ++i) std::fill(c + i * n, c + (i + 1) * n, 0.0f);
    for (int64_t k0 = 0; k0 < k; k0 += kKPanel) {
      const int64_t k1 = std::min(k, k0 + kKPanel);
      for (int64_t j0 = 0; j0 < n; j0 += kNPanel) {
        const int64_t j1 = std::min(n, j0 + kNPanel);
        // Loop order follows A's layout so that A is read along its rows.
        if (a_column_stride == 1) {
          for (int64_t i = row_begin; i < row_end; ++i) {
            for (int64_t p = k0; p < k1; ++p) axpy(a[i * a_row_stride + p], b + p * n, c + i * n, j0, j1);
          }
        } else {
          for (int64_t p = k0; p < k1; ++p) {
            for (int64_t i = row_begin; i < row_end; ++i) axpy(a[i + p * a_column_stride], b + p * n, c + i * n, j0, j1);
          }
        }
      }
    }
  }
}

}  // namespace

void matmul_forward(Cpu, const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& c) {
  const int64_t m = c.size(0);
  const int64_t n = c.size(1);
  const int64_t k = transpose_a ? a.size(0) : a.size(1);
  if (m == 0 || n == 0) return;
  const bool narrow = a.dtype() == DType::BFloat16;
  std::vector<float> a_wide;
  std::vector<float> b_wide;
  const float* a_data = narrow ? (a_wide = widened(a)).data() : a.data<float>();
  const float* b_data = narrow ? (b_wide = widened(b)).data() : b.data<float>();
  std::vector<float> b_copy;
  if (transpose_b) b_data = (b_copy = transposed_copy(b_data, b.size(0), b.size(1))).data();
  std::vector<float> c_wide;
  if (c.dtype() != DType::Float32) c_wide.resize(static_cast<std::size_t>(c.numel()));
  float* c_data = c.dtype() == DType::Float32 ? c.data<float>() : c_wide.data();
  // A stored [m,k] (row stride k, column stride 1) or, transposed, [k,m].
  gemm(a_data, transpose_a ? 1 : k, transpose_a ? m : 1, b_data, c_data, m, k, n);
  if (c.dtype() == DType::BFloat16) {
    bfloat16* out = c.data<bfloat16>();
    const int64_t count = m * n;
#pragma omp parallel for if (count > 65536)
    for (int64_t i = 0; i < count; ++i) out[i] = bfloat16(c_wide[static_cast<std::size_t>(i)]);
  }
}

}  // namespace sgnn::ops
