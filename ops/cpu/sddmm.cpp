// CPU reference of SDDMM: one CSR row per iteration (OpenMP over rows), float
// accumulation of each dot product in feature order. bfloat16 x and y are
// read as float (their products are exact in float) and the output is
// float32 or bfloat16 (the float dot rounded once), as on CUDA: the same
// rounding points, only the order of the sums differs.
#include "core/bfloat16.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

void sddmm_dot_forward(Cpu, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out, const Hrpb* /*hrpb*/, const SddmmLaunch& /*launch: CUDA's kernel*/) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const int64_t width = heads * features;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    float* result_float = out.dtype() == DType::Float32 ? out.data<float>() : nullptr;
    bfloat16* result_bf16 = out.dtype() == DType::BFloat16 ? out.data<bfloat16>() : nullptr;
    const T* left = x.data<T>();
    const T* right = y.data<T>();
    with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        const T* x_row = left + row * width;
        for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
          const T* y_row = right + int64_t{columns[e]} * width;
          for (int64_t h = 0; h < heads; ++h) {
            float dot = 0.0f;
            for (int64_t f = h * features; f < (h + 1) * features; ++f) {
              dot += load_float(x_row[f]) * load_float(y_row[f]);
            }
            if (result_bf16) result_bf16[e * heads + h] = bfloat16(dot);
            else result_float[e * heads + h] = dot;
          }
        }
      }
    });
  });
}

void sddmm_add_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& x, const Tensor& y, Tensor& out) {
  const int32_t* columns = csr.indices.data<int32_t>();
  float* result = out.data<float>();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* left = x.data<T>();
    const T* right = y.data<T>();
    with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
          for (int64_t h = 0; h < heads; ++h) {
            result[e * heads + h] =
                load_float(left[row * heads + h]) + load_float(right[int64_t{columns[e]} * heads + h]);
          }
        }
      }
    });
  });
}

}  // namespace sgnn::ops
