// CPU reference of the edge softmax: per row and head, two passes (max, then
// sum of exponentials), float arithmetic; OpenMP over rows.
#include <cmath>
#include <limits>

#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

// Calls visit(begin, end, head) for every row's entry range [begin, end) and head.
template <typename Visit>
void for_each_row_and_head(const Csr& csr, int64_t heads, Visit&& visit) {
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      for (int64_t h = 0; h < heads; ++h) visit(int64_t{indptr[row]}, int64_t{indptr[row + 1]}, h);
    }
  });
}

}  // namespace

void edge_softmax_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out) {
  const float* s = scores.data<float>();
  float* a = out.data<float>();
  for_each_row_and_head(csr, heads, [&](int64_t begin, int64_t end, int64_t h) {
    float maximum = -std::numeric_limits<float>::infinity();
    for (int64_t e = begin; e < end; ++e) maximum = std::fmax(maximum, s[e * heads + h]);
    float sum = 0.0f;
    for (int64_t e = begin; e < end; ++e) {
      a[e * heads + h] = std::exp(s[e * heads + h] - maximum);
      sum += a[e * heads + h];
    }
    for (int64_t e = begin; e < end; ++e) a[e * heads + h] /= sum;
  });
}

void edge_softmax_backward(Cpu, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores) {
  const float* a = out.data<float>();
  const float* g = grad_out.data<float>();
  float* result = grad_scores.data<float>();
  for_each_row_and_head(csr, heads, [&](int64_t begin, int64_t end, int64_t h) {
    float weighted = 0.0f;
    for (int64_t e = begin; e < end; ++e) weighted += a[e * heads + h] * g[e * heads + h];
    for (int64_t e = begin; e < end; ++e) result[e * heads + h] = a[e * heads + h] * (g[e * heads + h] - weighted);
  });
}

}  // namespace sgnn::ops
