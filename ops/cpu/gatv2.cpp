// CPU reference of GATv2's scores and their gradients (ops/gatv2_backend.hpp):
// OpenMP over rows, float arithmetic in each row's CSR order. And the CPU
// form of gatv2_aggregate: OpenMP over rows (forward, the backward's row
// pass) and over Aᵀ's rows (x_source's gradient); its scores are computed as
// the scores op computes them and its softmax as ops/cpu/edge_softmax.cpp's,
// so it equals the composition it replaces up to the order of float sums.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

float leaky_relu(float z, float slope) { return z > 0.0f ? z : slope * z; }

// Σ_f a[h, f] · LeakyReLU(x[row, h, f] + y[column, h, f]), x and y rows of width H·F.
template <typename T>
float entry_score(const T* x, const T* y, const float* attention, int64_t row, int64_t column, int64_t h,
                  int64_t features, int64_t width, float slope) {
  float sum = 0.0f;
  for (int64_t f = 0; f < features; ++f) {
    const float z = load_float(x[row * width + h * features + f]) + load_float(y[column * width + h * features + f]);
    sum += attention[h * features + f] * leaky_relu(z, slope);
  }
  return sum;
}

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
          out[e * heads + h] = entry_score(x, y, attention, row, column, h, features, width, slope);
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

// α̃'s factors of one entry's heads: 1 without dropout; else the mask's
// scale or 0 by the draws e·H .. e·H + H - 1, one Philox call per block of 8
// draws as ops::dropout makes them (a call per head took 8 times the work).
class EntryMask {
 public:
  EntryMask(const std::optional<EntryDropout>& dropout, int64_t heads)
      : dropout_(dropout), heads_(heads), factors_(static_cast<std::size_t>(heads), 1.0f) {
    if (dropout_) {
      stream_ = dropout_->draw.resolve();
      scale_ = 1.0f / (1.0f - dropout_->p);
    }
  }
  // The factors of entry e, valid until the next call.
  const float* of(int64_t e) {
    if (!dropout_) return factors_.data();
    const auto first = static_cast<uint64_t>(e * heads_);
    const auto last = first + static_cast<uint64_t>(heads_);  // one past
    float block[8];
    for (uint64_t b = first >> 3; b <= (last - 1) >> 3; ++b) {
      stream_.uniform8(b, block);
      for (uint64_t i = std::max(first, b << 3); i < std::min(last, (b + 1) << 3); ++i) {
        factors_[static_cast<std::size_t>(i - first)] = block[i & 7] >= dropout_->p ? scale_ : 0.0f;
      }
    }
    return factors_.data();
  }

 private:
  const std::optional<EntryDropout>& dropout_;
  int64_t heads_;
  std::vector<float> factors_;
  PhiloxStream stream_;
  float scale_ = 1.0f;
};

template <typename T>
void forward_rows(const Csr& csr, const Tensor& x_target, const Tensor& x_source, const Tensor& a, float slope,
                  const std::optional<EntryDropout>& dropout, Tensor& scores, Tensor& row_lse, Tensor& out) {
  const int64_t heads = x_target.size(1), features = x_target.size(2), width = heads * features;
  const T* x = x_target.data<T>();
  const T* y = x_source.data<T>();
  const float* attention = a.data<float>();
  const int32_t* indices = csr.indices.data<int32_t>();
  float* raw = scores.data<float>();
  float* lse = row_lse.data<float>();
  T* result = out.data<T>();
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel
    {
      std::vector<float> sums(static_cast<std::size_t>(width));
      std::vector<float> maxima(static_cast<std::size_t>(heads)), totals(static_cast<std::size_t>(heads));
      EntryMask mask(dropout, heads);
#pragma omp for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        const int64_t begin = indptr[row], end = indptr[row + 1];
        for (int64_t e = begin; e < end; ++e) {  // the scores
          const int64_t column = indices[e];
          for (int64_t h = 0; h < heads; ++h) {
            raw[e * heads + h] = entry_score(x, y, attention, row, column, h, features, width, slope);
          }
        }
        for (int64_t h = 0; h < heads; ++h) {  // the softmax's maximum and sum, and the row's log-sum-exp
          float maximum = -std::numeric_limits<float>::infinity();
          for (int64_t e = begin; e < end; ++e) maximum = std::fmax(maximum, raw[e * heads + h]);
          float total = 0.0f;
          for (int64_t e = begin; e < end; ++e) total += std::exp(raw[e * heads + h] - maximum);
          maxima[static_cast<std::size_t>(h)] = maximum;
          totals[static_cast<std::size_t>(h)] = total;
          lse[row * heads + h] = maximum + std::log(total);
        }
        std::fill(sums.begin(), sums.end(), 0.0f);
        for (int64_t e = begin; e < end; ++e) {  // the aggregation with the dropped weights
          const int64_t column = indices[e];
          const float* kept = mask.of(e);
          for (int64_t h = 0; h < heads; ++h) {
            const std::size_t k = static_cast<std::size_t>(h);
            const float w = std::exp(raw[e * heads + h] - maxima[k]) / totals[k] * kept[h];
            for (int64_t f = 0; f < features; ++f) {
              sums[static_cast<std::size_t>(h * features + f)] += w * load_float(y[column * width + h * features + f]);
            }
          }
        }
        for (int64_t i = 0; i < width; ++i) result[row * width + i] = store_as<T>(sums[static_cast<std::size_t>(i)]);
      }
    }
  });
}

template <typename T>
void backward_passes(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                     float slope, const std::optional<EntryDropout>& dropout, const Tensor& scores, const Tensor& row_lse,
                     const Tensor& out, const Tensor& grad_out, Tensor& grad_x_target, Tensor& grad_x_source,
                     Tensor& grad_a) {
  const Csr& csr = adjacency.csr;
  const int64_t heads = x_target.size(1), features = x_target.size(2), width = heads * features;
  const T* x = x_target.data<T>();
  const T* y = x_source.data<T>();
  const float* attention = a.data<float>();
  const float* raw = scores.data<float>();
  const float* lse = row_lse.data<float>();
  const float* output = out.data<float>();
  const float* upstream = grad_out.data<float>();
  const int32_t* indices = csr.indices.data<int32_t>();
  float* into_target = grad_x_target.data<float>();
  float* into_source = grad_x_source.data<float>();
  // The scores' gradient, α · (∂L/∂α − D), kept for x_source's pass.
  std::vector<float> score_gradient(static_cast<std::size_t>(csr.nnz * heads));
  std::vector<std::vector<float>> a_partials(static_cast<std::size_t>(omp_get_max_threads()));
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel
    {
      std::vector<float>& a_sums = a_partials[static_cast<std::size_t>(omp_get_thread_num())];
      a_sums.assign(static_cast<std::size_t>(width), 0.0f);
      std::vector<float> weighted(static_cast<std::size_t>(heads));
      EntryMask mask(dropout, heads);
#pragma omp for schedule(static)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        for (int64_t h = 0; h < heads; ++h) {  // D[row, h] = Σ_f grad_out · out
          float sum = 0.0f;
          for (int64_t f = 0; f < features; ++f) {
            sum += upstream[row * width + h * features + f] * output[row * width + h * features + f];
          }
          weighted[static_cast<std::size_t>(h)] = sum;
        }
        for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
          const int64_t column = indices[e];
          const float* kept = mask.of(e);
          for (int64_t h = 0; h < heads; ++h) {
            float product = 0.0f;  // ∂L/∂α̃ = grad_out[row, h] · x_source[col, h]
            for (int64_t f = 0; f < features; ++f) {
              product += upstream[row * width + h * features + f] * load_float(y[column * width + h * features + f]);
            }
            const float alpha = std::exp(raw[e * heads + h] - lse[row * heads + h]);
            const float g = alpha * (product * kept[h] - weighted[static_cast<std::size_t>(h)]);
            score_gradient[static_cast<std::size_t>(e * heads + h)] = g;
            for (int64_t f = 0; f < features; ++f) {
              const int64_t i = h * features + f;
              const float z = load_float(x[row * width + i]) + load_float(y[column * width + i]);
              into_target[row * width + i] += g * attention[i] * (z > 0.0f ? 1.0f : slope);
              a_sums[static_cast<std::size_t>(i)] += g * leaky_relu(z, slope);
            }
          }
        }
      }
    }
  });
  float* into_a = grad_a.data<float>();
  for (const std::vector<float>& a_sums : a_partials) {
    for (std::size_t i = 0; i < a_sums.size(); ++i) into_a[i] += a_sums[i];
  }
  // x_source's gradient, rows of Aᵀ: the scores' part and the aggregation's (α̃ · grad_out[row]).
  const Csr& transpose = adjacency.transpose;
  const int32_t* rows_of = transpose.indices.data<int32_t>();
  with_offsets(adjacency.transpose_to_csr, [&](const auto* entry_of) {
    with_offsets(transpose.indptr, [&](const auto* tindptr) {
#pragma omp parallel
      {
        EntryMask mask(dropout, heads);
#pragma omp for schedule(dynamic, 64)
        for (int64_t column = 0; column < transpose.num_rows; ++column) {
          for (int64_t k = tindptr[column]; k < tindptr[column + 1]; ++k) {
            const int64_t e = entry_of[k];
            const int64_t row = rows_of[k];
            const float* kept = mask.of(e);
            for (int64_t h = 0; h < heads; ++h) {
              const float g = score_gradient[static_cast<std::size_t>(e * heads + h)];
              const float w = std::exp(raw[e * heads + h] - lse[row * heads + h]) * kept[h];
              for (int64_t f = 0; f < features; ++f) {
                const int64_t i = h * features + f;
                const float z = load_float(x[row * width + i]) + load_float(y[column * width + i]);
                into_source[column * width + i] += g * attention[i] * (z > 0.0f ? 1.0f : slope) + w * upstream[row * width + i];
              }
            }
          }
        }
      }
    });
  });
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

std::vector<int> gatv2_fused_layouts(Cpu, const Tensor&, const Tensor&, const Adjacency&) { return {1}; }

void gatv2_aggregate_forward(Cpu, const Csr& csr, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                             float negative_slope, const std::optional<EntryDropout>& dropout, int /*lanes_per_head*/,
                             Tensor& scores, Tensor& row_lse, Tensor& out) {
  visit_floating(x_target.dtype(), [&](auto element) {
    forward_rows<decltype(element)>(csr, x_target, x_source, a, negative_slope, dropout, scores, row_lse, out);
  });
}

void gatv2_aggregate_backward(Cpu, const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source,
                              const Tensor& a, float negative_slope, const std::optional<EntryDropout>& dropout,
                              int /*lanes_per_head*/, const Tensor& scores, const Tensor& row_lse, const Tensor& out,
                              const Tensor& grad_out, Tensor& grad_x_target, Tensor& grad_x_source, Tensor& grad_a) {
  for (Tensor* gradient : {&grad_x_target, &grad_x_source, &grad_a}) {
    std::fill_n(gradient->data<float>(), gradient->numel(), 0.0f);
  }
  visit_floating(x_target.dtype(), [&](auto element) {
    backward_passes<decltype(element)>(adjacency, x_target, x_source, a, negative_slope, dropout, scores, row_lse, out,
                                       grad_out,
                                       grad_x_target, grad_x_source, grad_a);
  });
}

}  // namespace sgnn::ops
