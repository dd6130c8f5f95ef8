// CPU reference of the edge softmax and of the fused GAT attention softmax:
// per row and head, two passes (max, then sum of exponentials), float
// arithmetic; OpenMP over rows. bfloat16 inputs are read as float and the
// results rounded once, as the CUDA kernels do. The fused op's scores are
// computed as sddmm_add and leaky_relu compute them (ops/activation_math.hpp).
#include <cmath>
#include <limits>

#include "ops/activation_math.hpp"
#include "ops/edge_softmax_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

// Calls visit(row, begin, end, head) for every row's entry range [begin, end) and head.
template <typename Visit>
void for_each_row_and_head(const Csr& csr, int64_t heads, Visit&& visit) {
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      for (int64_t h = 0; h < heads; ++h) visit(row, int64_t{indptr[row]}, int64_t{indptr[row + 1]}, h);
    }
  });
}

// out[e·heads + h] = softmax over the row of score(row, e, h).
template <typename T, typename Score>
void softmax_rows(const Csr& csr, int64_t heads, T* out, Score&& score) {
  for_each_row_and_head(csr, heads, [&](int64_t row, int64_t begin, int64_t end, int64_t h) {
    float maximum = -std::numeric_limits<float>::infinity();
    for (int64_t e = begin; e < end; ++e) maximum = std::fmax(maximum, score(row, e, h));
    float sum = 0.0f;
    for (int64_t e = begin; e < end; ++e) sum += std::exp(score(row, e, h) - maximum);
    // exp() is evaluated again rather than kept: the output may be bfloat16, the sum must not see its rounding.
    for (int64_t e = begin; e < end; ++e) out[e * heads + h] = store_as<T>(std::exp(score(row, e, h) - maximum) / sum);
  });
}

// result[k] = input_gradient(row, e, h, out[k] · (grad_out[k] − Σ_row out · grad_out)), k = e·heads + h.
template <typename T, typename InputGradient>
void softmax_rows_backward(const Csr& csr, int64_t heads, const T* out, const T* grad_out, T* result,
                           InputGradient&& input_gradient) {
  for_each_row_and_head(csr, heads, [&](int64_t row, int64_t begin, int64_t end, int64_t h) {
    float weighted = 0.0f;
    for (int64_t e = begin; e < end; ++e) {
      weighted += load_float(out[e * heads + h]) * load_float(grad_out[e * heads + h]);
    }
    for (int64_t e = begin; e < end; ++e) {
      const int64_t k = e * heads + h;
      result[k] = store_as<T>(input_gradient(row, e, h, load_float(out[k]) * (load_float(grad_out[k]) - weighted)));
    }
  });
}

// leaky_relu(x[row, h] + y[col(e), h]) of the fused op.
template <typename T>
struct AttentionScores {
  const T* x;
  const T* y;
  const int32_t* indices;
  int64_t heads;
  float negative_slope;
  float operator()(int64_t row, int64_t e, int64_t h) const {
    const float sum = load_float(x[row * heads + h]) + load_float(y[int64_t{indices[e]} * heads + h]);
    return activation_value(Activation::LeakyRelu, negative_slope, sum);
  }
};

}  // namespace

void edge_softmax_forward(Cpu, const Csr& csr, int64_t heads, const Tensor& scores, Tensor& out) {
  visit_floating(scores.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* s = scores.data<T>();
    softmax_rows(csr, heads, out.data<T>(), [&](int64_t, int64_t e, int64_t h) { return load_float(s[e * heads + h]); });
  });
}

void edge_softmax_backward(Cpu, const Csr& csr, int64_t heads, const Tensor& out, const Tensor& grad_out,
                           Tensor& grad_scores) {
  visit_floating(out.dtype(), [&](auto element) {
    using T = decltype(element);
    softmax_rows_backward(csr, heads, out.data<T>(), grad_out.data<T>(), grad_scores.data<T>(),
                          [](int64_t, int64_t, int64_t, float grad_score) { return grad_score; });
  });
}

void attention_softmax_forward(Cpu, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                               const Tensor& y, Tensor& out) {
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const AttentionScores<T> score{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    softmax_rows(csr, heads, out.data<T>(), score);
  });
}

void attention_softmax_backward(Cpu, const Csr& csr, int64_t heads, float negative_slope, const Tensor& x,
                                const Tensor& y, const Tensor& out, const Tensor& grad_out, Tensor& grad_sums) {
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const AttentionScores<T> score{x.data<T>(), y.data<T>(), csr.indices.data<int32_t>(), heads, negative_slope};
    softmax_rows_backward(csr, heads, out.data<T>(), grad_out.data<T>(), grad_sums.data<T>(),
                          [&](int64_t row, int64_t e, int64_t h, float grad_score) {
                            return activation_gradient(Activation::LeakyRelu, negative_slope, score(row, e, h),
                                                       grad_score);
                          });
  });
}

}  // namespace sgnn::ops
