// CPU reference of SDDMM: one CSR row per iteration (OpenMP over rows), float
// accumulation of each dot product in feature order.
#include "ops/sddmm_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

void sddmm_dot_forward(Cpu, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const float* left = x.data<float>();
  const float* right = y.data<float>();
  float* result = out.data<float>();
  const int64_t width = heads * features;
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      const float* x_row = left + row * width;
      for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
        const float* y_row = right + int64_t{columns[e]} * width;
        for (int64_t h = 0; h < heads; ++h) {
          float dot = 0.0f;
          for (int64_t f = h * features; f < (h + 1) * features; ++f) dot += x_row[f] * y_row[f];
          result[e * heads + h] = dot;
        }
      }
    }
  });
}

void sddmm_add_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& x, const Tensor& y, Tensor& out) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const float* left = x.data<float>();
  const float* right = y.data<float>();
  float* result = out.data<float>();
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
        for (int64_t h = 0; h < heads; ++h) {
          result[e * heads + h] = left[row * heads + h] + right[int64_t{columns[e]} * heads + h];
        }
      }
    }
  });
}

}  // namespace sgnn::ops
