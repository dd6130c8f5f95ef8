// Cache-blocked GEMM for the CPU backend.
//
// The product is computed as C = A · B with A [m,k] and B [k,n] row-major;
// transposed operands are first copied into that layout (O(size) against the
// O(m·n·k) product). Rows of C are split among threads in tiles; for each tile
// a panel of K and a panel of N are walked so that the B panel (kKPanel ×
// kNPanel floats = 256 KiB) stays in L2 while the innermost loop streams one
// row of it into one row of C with SIMD.
#include <algorithm>
#include <vector>

#include "ops/matmul_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kRowTile = 32;
constexpr int64_t kKPanel = 256;
constexpr int64_t kNPanel = 256;

// Row-major copy of op(t): t itself when not transposed, else its transpose.
std::vector<float> transposed_copy(const Tensor& t) {
  const int64_t rows = t.size(0);
  const int64_t cols = t.size(1);
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
  const float* in = t.data<float>();
#pragma omp parallel for if (rows * cols > 65536)
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) out[static_cast<std::size_t>(c * rows + r)] = in[r * cols + c];
  }
  return out;
}

void gemm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
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
        for (int64_t i = row_begin; i < row_end; ++i) {
          float* __restrict__ c_row = c + i * n;
          const float* a_row = a + i * k;
          for (int64_t p = k0; p < k1; ++p) {
            const float a_ip = a_row[p];
            const float* __restrict__ b_row = b + p * n;
#pragma omp simd
            for (int64_t j = j0; j < j1; ++j) c_row[j] += a_ip * b_row[j];
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
  std::vector<float> a_copy;
  std::vector<float> b_copy;
  const float* a_data = a.data<float>();
  const float* b_data = b.data<float>();
  if (transpose_a) a_data = (a_copy = transposed_copy(a)).data();
  if (transpose_b) b_data = (b_copy = transposed_copy(b)).data();
  gemm(a_data, b_data, c.data<float>(), m, k, n);
}

}  // namespace sgnn::ops
