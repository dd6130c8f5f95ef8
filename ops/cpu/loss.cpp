#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/loss_backend.hpp"
#include "ops/loss_math.hpp"

namespace sgnn::ops {

namespace {

const int32_t* index_data(const Tensor& index) { return index.defined() ? index.data<int32_t>() : nullptr; }

// log Σ_c exp(row[c]), shifted by the row maximum, in double.
template <typename T>
double log_sum_exp(const T* row, int64_t cols) {
  float maximum = -std::numeric_limits<float>::infinity();
  for (int64_t c = 0; c < cols; ++c) maximum = std::max(maximum, load_float(row[c]));
  const double shift = std::isfinite(maximum) ? static_cast<double>(maximum) : 0.0;
  double total = 0.0;
  for (int64_t c = 0; c < cols; ++c) total += std::exp(static_cast<double>(load_float(row[c])) - shift);
  return shift + std::log(total);
}

}  // namespace

void loss_per_row(Cpu, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                  Tensor& per_row) {
  const int64_t rows = input.size(0);
  const int64_t classes = input.size(1);
  const int64_t selected = per_row.numel();
  const int32_t* label = labels.data<int32_t>();
  const int32_t* rows_selected = index_data(index);
  float* out = per_row.data<float>();
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* x = input.data<T>();
#pragma omp parallel for if (selected * classes > 16384)
    for (int64_t e = 0; e < selected; ++e) {
      const int64_t r = selected_row(e, rows_selected, label, rows, classes);
      if (r < 0) {
        out[e] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      const T* row = x + r * classes;
      const double target = static_cast<double>(load_float(row[label[r]]));
      out[e] = static_cast<float>(kind == LossKind::Nll ? -target : log_sum_exp(row, classes) - target);
    }
  });
}

void loss_backward(Cpu, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                   const Tensor& grad_loss, float inverse_count, Tensor& grad_input) {
  const int64_t rows = input.size(0);
  const int64_t classes = input.size(1);
  const int64_t selected = index.defined() ? index.numel() : rows;
  const int32_t* label = labels.data<int32_t>();
  const int32_t* rows_selected = index_data(index);

  // How often each row is selected: a row listed twice gets twice the gradient.
  std::vector<float> multiplicity(static_cast<std::size_t>(rows), 0.0f);
  for (int64_t e = 0; e < selected; ++e) {
    const int64_t r = selected_row(e, rows_selected, label, rows, classes);
    if (r >= 0) multiplicity[static_cast<std::size_t>(r)] += 1.0f;
  }
  const float upstream = grad_loss.data<float>()[0] * inverse_count;
  // Each row's gradient is computed in float and rounded once into a bfloat16 grad_input.
  visit_floating(input.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* x = input.data<T>();
    T* grad = grad_input.data<T>();
#pragma omp parallel for if (rows * classes > 16384)
    for (int64_t r = 0; r < rows; ++r) {
      T* out = grad + r * classes;
      const float weight = multiplicity[static_cast<std::size_t>(r)] * upstream;
      if (multiplicity[static_cast<std::size_t>(r)] == 0.0f) {
        std::fill_n(out, classes, store_as<T>(0.0f));
        continue;
      }
      const T* row = x + r * classes;
      const double lse = kind == LossKind::CrossEntropy ? log_sum_exp(row, classes) : 0.0;
      for (int64_t c = 0; c < classes; ++c) {
        const float probability_part =
            kind == LossKind::CrossEntropy
                ? weight * static_cast<float>(std::exp(static_cast<double>(load_float(row[c])) - lse))
                : 0.0f;
        out[c] = store_as<T>(c == label[r] ? probability_part - weight : probability_part);
      }
    }
  });
}

}  // namespace sgnn::ops
