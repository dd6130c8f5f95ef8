// The reference backend of the normalisations: statistics and sums in double
// (two passes: the mean, then the squared deviations from it), elements by
// the shared float formulas.
#include <algorithm>
#include <vector>

#include "ops/normalization_backend.hpp"
#include "ops/normalization_math.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kColumnChunk = 64;  // columns of one task: rows are read contiguously

// f(first column, column count) over chunks of columns, in parallel.
template <typename F>
void for_column_chunks(int64_t columns, int64_t elements, F&& f) {
  const int64_t chunks = (columns + kColumnChunk - 1) / kColumnChunk;
#pragma omp parallel for if (chunks > 1 && elements > 65536)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    f(chunk * kColumnChunk, std::min(kColumnChunk, columns - chunk * kColumnChunk));
  }
}

const float* optional(const Tensor& parameter) { return parameter.defined() ? parameter.data<float>() : nullptr; }

}  // namespace

void batch_norm_statistics(Cpu, const Tensor& x, bool training, float momentum, float eps, const Tensor& running_mean,
                           const Tensor& running_var, const Tensor& batches, Tensor& mean, Tensor& inverse_std_out) {
  const int64_t columns = x.size(1);
  const int64_t rows = x.size(0);
  float* mean_out = mean.data<float>();
  float* scale_out = inverse_std_out.data<float>();
  if (!training) {
    for (int64_t c = 0; c < columns; ++c) {
      mean_out[c] = running_mean.data<float>()[c];
      scale_out[c] = inverse_std(running_var.data<float>()[c], eps);
    }
    return;
  }
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* data = x.data<T>();
    for_column_chunks(columns, x.numel(), [&](int64_t first, int64_t width) {
      double total[kColumnChunk] = {}, squares[kColumnChunk] = {};
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < width; ++i) total[i] += static_cast<double>(load_float(data[r * columns + first + i]));
      }
      for (int64_t i = 0; i < width; ++i) total[i] /= static_cast<double>(rows);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < width; ++i) {
          const double deviation = static_cast<double>(load_float(data[r * columns + first + i])) - total[i];
          squares[i] += deviation * deviation;
        }
      }
      for (int64_t i = 0; i < width; ++i) {
        const int64_t c = first + i;
        const auto batch_mean = static_cast<float>(total[i]);
        mean_out[c] = batch_mean;
        scale_out[c] = inverse_std(static_cast<float>(squares[i] / static_cast<double>(rows)), eps);
        if (running_mean.defined()) {
          float& running = running_mean.data<float>()[c];
          float& variance = running_var.data<float>()[c];
          running = running_update(running, batch_mean, momentum);
          variance = running_update(variance, static_cast<float>(squares[i] / static_cast<double>(rows - 1)), momentum);
        }
      }
    });
  });
  if (batches.defined()) ++batches.data<int64_t>()[0];
}

void batch_norm_forward(Cpu, const Tensor& x, const Tensor& mean, const Tensor& inverse_std_in, const Tensor& weight,
                        const Tensor& bias, Tensor& y) {
  const int64_t columns = x.size(1);
  const int64_t rows = x.size(0);
  const float* m = mean.data<float>();
  const float* s = inverse_std_in.data<float>();
  const float* w = optional(weight);
  const float* b = optional(bias);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
#pragma omp parallel for if (x.numel() > 65536)
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < columns; ++c) {
        out[r * columns + c] = store_as<T>(normalized(load_float(in[r * columns + c]), m[c], s[c],
                                                      weight_at(w, c), bias_at(b, c)));
      }
    }
  });
}

void normalization_sums(Cpu, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std_in,
                        bool per_row_statistics, Tensor& sums) {
  const int64_t columns = x.size(-1);
  const int64_t rows = columns == 0 ? 0 : x.numel() / columns;
  const float* m = mean.data<float>();
  const float* s = inverse_std_in.data<float>();
  float* out = sums.data<float>();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* xs = x.data<T>();
    const T* gs = grad_y.data<T>();
    for_column_chunks(columns, x.numel(), [&](int64_t first, int64_t width) {
      double grad_total[kColumnChunk] = {}, product_total[kColumnChunk] = {};
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < width; ++i) {
          const int64_t index = r * columns + first + i;
          const int64_t statistic = per_row_statistics ? r : first + i;
          const auto g = static_cast<double>(load_float(gs[index]));
          const double centered = static_cast<double>(load_float(xs[index])) - static_cast<double>(m[statistic]);
          grad_total[i] += g;
          product_total[i] += g * centered * static_cast<double>(s[statistic]);
        }
      }
      for (int64_t i = 0; i < width; ++i) {
        out[first + i] = static_cast<float>(grad_total[i]);
        out[columns + first + i] = static_cast<float>(product_total[i]);
      }
    });
  });
}

void batch_norm_backward(Cpu, bool training, const Tensor& grad_y, const Tensor& x, const Tensor& mean,
                         const Tensor& inverse_std_in, const Tensor& weight, const Tensor& sums, Tensor& grad_x) {
  const int64_t columns = x.size(1);
  const int64_t rows = x.size(0);
  const float* m = mean.data<float>();
  const float* s = inverse_std_in.data<float>();
  const float* w = optional(weight);
  std::vector<float> mean_grad(static_cast<std::size_t>(columns), 0.0f), mean_product(mean_grad);
  if (training) {
    const float inverse_rows = 1.0f / static_cast<float>(rows);  // as the CUDA backend
    for (int64_t c = 0; c < columns; ++c) {
      mean_grad[static_cast<std::size_t>(c)] = sums.data<float>()[c] * inverse_rows;
      mean_product[static_cast<std::size_t>(c)] = sums.data<float>()[columns + c] * inverse_rows;
    }
  }
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* xs = x.data<T>();
    const T* gs = grad_y.data<T>();
    T* out = grad_x.data<T>();
#pragma omp parallel for if (x.numel() > 65536)
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < columns; ++c) {
        const int64_t index = r * columns + c;
        const float normalized_x = (load_float(xs[index]) - m[c]) * s[c];
        out[index] = store_as<T>(centered_gradient(weight_at(w, c) * s[c], load_float(gs[index]),
                                                   normalized_x, mean_grad[static_cast<std::size_t>(c)],
                                                   mean_product[static_cast<std::size_t>(c)]));
      }
    }
  });
}

void layer_norm_forward(Cpu, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, Tensor& y,
                        Tensor& mean, Tensor& inverse_std_out) {
  const int64_t columns = x.size(-1);
  const int64_t rows = x.numel() / columns;
  float* mean_out = mean.data<float>();
  float* scale_out = inverse_std_out.data<float>();
  const float* w = optional(weight);
  const float* b = optional(bias);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
#pragma omp parallel for if (x.numel() > 65536)
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * columns;
      double total = 0.0, squares = 0.0;
      for (int64_t c = 0; c < columns; ++c) total += static_cast<double>(load_float(row[c]));
      const double row_mean = total / static_cast<double>(columns);
      for (int64_t c = 0; c < columns; ++c) {
        const double deviation = static_cast<double>(load_float(row[c])) - row_mean;
        squares += deviation * deviation;
      }
      mean_out[r] = static_cast<float>(row_mean);
      scale_out[r] = inverse_std(static_cast<float>(squares / static_cast<double>(columns)), eps);
      for (int64_t c = 0; c < columns; ++c) {
        out[r * columns + c] = store_as<T>(normalized(load_float(row[c]), mean_out[r], scale_out[r],
                                                      weight_at(w, c), bias_at(b, c)));
      }
    }
  });
}

void layer_norm_backward(Cpu, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std_in,
                         const Tensor& weight, Tensor& grad_x) {
  const int64_t columns = x.size(-1);
  const int64_t rows = x.numel() / columns;
  const float* m = mean.data<float>();
  const float* s = inverse_std_in.data<float>();
  const float* w = optional(weight);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* xs = x.data<T>();
    const T* gs = grad_y.data<T>();
    T* out = grad_x.data<T>();
#pragma omp parallel for if (x.numel() > 65536)
    for (int64_t r = 0; r < rows; ++r) {
      double grad_total = 0.0, product_total = 0.0;
      for (int64_t c = 0; c < columns; ++c) {
        const int64_t index = r * columns + c;
        const double scaled = static_cast<double>(weight_at(w, c)) * static_cast<double>(load_float(gs[index]));
        grad_total += scaled;
        product_total += scaled * (static_cast<double>(load_float(xs[index])) - static_cast<double>(m[r])) *
                         static_cast<double>(s[r]);
      }
      const auto mean_grad = static_cast<float>(grad_total / static_cast<double>(columns));
      const auto mean_product = static_cast<float>(product_total / static_cast<double>(columns));
      for (int64_t c = 0; c < columns; ++c) {
        const int64_t index = r * columns + c;
        const float normalized_x = (load_float(xs[index]) - m[r]) * s[r];
        out[index] = store_as<T>(centered_gradient(s[r], weight_at(w, c) * load_float(gs[index]),
                                                   normalized_x, mean_grad, mean_product));
      }
    }
  });
}

}  // namespace sgnn::ops
