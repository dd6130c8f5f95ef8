// CPU reference of GATv2's scores and their gradients (ops/gatv2_backend.hpp):
// OpenMP over rows, float arithmetic in each row's CSR order.
#include <omp.h>

#include <vector>

#include "core/bfloat16.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

float leaky_relu(float z, float slope) { return z > 0.0f ? z : slope * z; }

template <typename T>
void scores_rows(const Csr& csr, const Tensor& rows, const Tensor& columns, const Tensor& a, float slope,
                 Tensor& scores) {
  const int64_t heads = rows.size(1), features = rows.size(2), width = heads * features;
  const T* x = rows.data<T>();
  const T* y = columns.data<T>();
  const float* attention = a.data<float>();
  const int32_t* indices = csr.indices.data<int32_t>();
  float* out = scores.data<float>();
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
        const int64_t column = indices[e];
        for (int64_t h = 0; h < heads; ++h) {
          float sum = 0.0f;
          for (int64_t f = 0; f < features; ++f) {
            const float z = load_float(x[row * width + h * features + f]) + load_float(y[column * width + h * features + f]);
            sum += attention[h * features + f] * leaky_relu(z, slope);
          }
          out[e * heads + h] = sum;
        }
      }
    }
  });
}

template <typename T>
void backward_rows(const Csr& csr, const int32_t* edge_map, const float* grad_scores, const Tensor& rows,
                   const Tensor& columns, const Tensor& a, float slope, Tensor& grad_rows, Tensor& grad_a) {
  const int64_t heads = rows.size(1), features = rows.size(2), width = heads * features;
  const T* x = rows.data<T>();
  const T* y = columns.data<T>();
  const float* attention = a.data<float>();
  const int32_t* indices = csr.indices.data<int32_t>();
  float* into_rows = grad_rows.data<float>();
  float* into_a = grad_a.defined() ? grad_a.data<float>() : nullptr;
  // a's sums: one partial per thread over a fixed (static) share of the
  // rows, added in thread order, so a run repeats its bits.
  std::vector<std::vector<float>> a_partials(static_cast<std::size_t>(omp_get_max_threads()));
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel
    {
      std::vector<float>& a_sums = a_partials[static_cast<std::size_t>(omp_get_thread_num())];
      a_sums.assign(into_a ? static_cast<std::size_t>(width) : 0, 0.0f);
#pragma omp for schedule(static)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
          const int64_t column = indices[e];
          const int64_t edge = edge_map ? int64_t{edge_map[e]} : e;
          for (int64_t h = 0; h < heads; ++h) {
            const float g = grad_scores[edge * heads + h];
            for (int64_t f = 0; f < features; ++f) {
              const int64_t i = h * features + f;
              const float z = load_float(x[row * width + i]) + load_float(y[column * width + i]);
              into_rows[row * width + i] += g * attention[i] * (z > 0.0f ? 1.0f : slope);
              if (into_a) a_sums[static_cast<std::size_t>(i)] += g * leaky_relu(z, slope);
            }
          }
        }
      }
    }
  });
  if (into_a) {
    for (const std::vector<float>& a_sums : a_partials) {
      for (std::size_t i = 0; i < a_sums.size(); ++i) into_a[i] += a_sums[i];
    }
  }
}

}  // namespace

void gatv2_scores_forward(Cpu, const Csr& csr, const Tensor& rows, const Tensor& columns, const Tensor& a,
                          float negative_slope, Tensor& scores) {
  visit_floating(rows.dtype(), [&](auto element) {
    scores_rows<decltype(element)>(csr, rows, columns, a, negative_slope, scores);
  });
}

void gatv2_scores_backward(Cpu, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a) {
  const int32_t* map = edge_map.defined() ? edge_map.data<int32_t>() : nullptr;
  visit_floating(rows.dtype(), [&](auto element) {
    backward_rows<decltype(element)>(csr, map, grad_scores.data<float>(), rows, columns, a, negative_slope, grad_rows,
                                     grad_a);
  });
}

}  // namespace sgnn::ops
