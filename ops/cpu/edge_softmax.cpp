// CPU reference of the edge softmax: per row and head, two passes (max, then
// sum of exponentials), float arithmetic; OpenMP over rows. bfloat16 scores
// are read as float and the results rounded once, as the CUDA kernels do.
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
  visit_floating(scores.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* s = scores.data<T>();
    T* a = out.data<T>();
    for_each_row_and_head(csr, heads, [&](int64_t begin, int64_t end, int64_t h) {
      float maximum = -std::numeric_limits<float>::infinity();
      for (int64_t e = begin; e < end; ++e) maximum = std::fmax(maximum, load_float(s[e * heads + h]));
      float sum = 0.0f;
      for (int64_t e = begin; e < end; ++e) sum += std::exp(load_float(s[e * heads + h]) - maximum);
      // exp() is evaluated again rather than kept: the output may be bfloat16, the sum must not see its rounding.
      for (int64_t e = begin; e < end; ++e) {
        a[e * heads + h] = store_as<T>(std::exp(load_float(s[e * heads + h]) - maximum) / sum);
      }
    });
  });
}

void edge_softmax_backward(Cpu, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores) {
  visit_floating(out.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* a = out.data<T>();
    const T* g = grad_out.data<T>();
    T* result = grad_scores.data<T>();
    for_each_row_and_head(csr, heads, [&](int64_t begin, int64_t end, int64_t h) {
      float weighted = 0.0f;
      for (int64_t e = begin; e < end; ++e) weighted += load_float(a[e * heads + h]) * load_float(g[e * heads + h]);
      for (int64_t e = begin; e < end; ++e) {
        const int64_t k = e * heads + h;
        result[k] = store_as<T>(load_float(a[k]) * (load_float(g[k]) - weighted));
      }
    });
  });
}

}  // namespace sgnn::ops
