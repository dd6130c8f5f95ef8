// CPU reference of edge_sums (ops/edge_sums_backend.hpp): one row per
// iteration (OpenMP over rows), float sums in the row's entry order.
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/edge_sums_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

void edge_sums(Cpu, const Csr& csr, int64_t heads, const Tensor& values, const Tensor& map, Tensor& out) {
  float* sums = out.data<float>();
  visit_floating(values.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* per_edge = values.data<T>();
    const auto sum_rows = [&](const auto* indptr, const auto* edge_of) {
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        for (int64_t h = 0; h < heads; ++h) {
          float sum = 0.0f;
          for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
            const int64_t edge = edge_of ? int64_t{edge_of[e]} : e;
            sum += load_float(per_edge[edge * heads + h]);
          }
          sums[row * heads + h] = sum;
        }
      }
    };
    with_offsets(csr.indptr, [&](const auto* indptr) {
      if (!map.defined()) return sum_rows(indptr, static_cast<const int32_t*>(nullptr));
      with_offsets(map, [&](const auto* edge_of) { sum_rows(indptr, edge_of); });
    });
  });
}

}  // namespace sgnn::ops
