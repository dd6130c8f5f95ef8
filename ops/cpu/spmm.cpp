// CPU reference of SpMM: one output row per iteration (OpenMP over rows),
// float accumulation in the CSR order of the row; a bfloat16 output is the
// float sum rounded once (the rounding points of the CUDA kernel).
#include <algorithm>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/sparse_offsets.hpp"
#include "ops/spmm_backend.hpp"

namespace sgnn::ops {

namespace {

template <typename T, typename V>
void spmm_rows(const Csr& csr, const V* weights, const int32_t* value_map, const double* scale, int64_t heads,
               int64_t features, const Tensor& b, Tensor& c, bool average) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const T* dense = b.data<T>();
  T* out = c.data<T>();
  const int64_t width = heads * features;
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel
    {
      std::vector<float> row_sum(static_cast<size_t>(width));  // the float sums of one output row
      float* sum = row_sum.data();
#pragma omp for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        std::fill(sum, sum + width, 0.0f);
        const double row_scale = scale ? scale[row] : 0.0;
        for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
          const T* b_row = dense + int64_t{columns[e]} * width;
          const int64_t value_entry = value_map ? int64_t{value_map[e]} : e;
          for (int64_t h = 0; h < heads; ++h) {
            const float weight = weights ? load_float(weights[value_entry * heads + h])
                                 : scale ? static_cast<float>(row_scale * scale[columns[e]])
                                         : 1.0f;
            for (int64_t f = h * features; f < (h + 1) * features; ++f) sum[f] += weight * load_float(b_row[f]);
          }
        }
        T* out_row = out + row * width;
        const int64_t length = indptr[row + 1] - indptr[row];
        const float factor = average && length > 0 ? 1.0f / static_cast<float>(length) : 1.0f;
        for (int64_t f = 0; f < width; ++f) out_row[f] = store_as<T>(average ? sum[f] * factor : sum[f]);
      }
    }
  });
}

}  // namespace

void spmm_forward(Cpu, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c, const double* symmetric_scale, const Tensor& value_map, bool average,
                  const CsrSpmmLaunch& /*launch*/) {
  const int32_t* map = value_map.defined() ? value_map.data<int32_t>() : nullptr;
  const auto with_weights = [&](const auto* weights) {
    if (b.dtype() == DType::BFloat16) {
      return spmm_rows<bfloat16>(csr, weights, map, symmetric_scale, heads, features, b, c, average);
    }
    spmm_rows<float>(csr, weights, map, symmetric_scale, heads, features, b, c, average);
  };
  if (!values.defined()) return with_weights(static_cast<const float*>(nullptr));
  visit_floating(values.dtype(), [&](auto element) { with_weights(values.data<decltype(element)>()); });
}

void gather_edges(Cpu, const Tensor& map, const Tensor& in, Tensor& out) {
  const int64_t count = map.numel();
  const int64_t width = count == 0 ? 0 : out.numel() / count;
  visit_floating(in.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* source = in.data<T>();
    T* destination = out.data<T>();
    with_offsets(map, [&](const auto* index) {
#pragma omp parallel for if (count > 65536)
      for (int64_t k = 0; k < count; ++k) {
        std::copy_n(source + int64_t{index[k]} * width, width, destination + k * width);
      }
    });
  });
}

}  // namespace sgnn::ops
