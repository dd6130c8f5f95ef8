// CPU reference of the segment reductions (ops/gather_scatter_backend.hpp):
// one segment per iteration (OpenMP over segments), its positions in order,
// sums in float; a bfloat16 output is the float result rounded once.
#include <algorithm>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/gather_scatter_backend.hpp"
#include "ops/segment_reduce_math.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

template <typename T, typename Offset>
void reduce_segments(const Offset* offsets, const int32_t* row_map, ReduceKind reduce, int64_t segments,
                     int64_t width, const T* src, T* out, int32_t* argument) {
  const bool keeps_argument = reduce_keeps_argument(reduce);
#pragma omp parallel
  {
    std::vector<float> accumulator(static_cast<std::size_t>(width));
    std::vector<int32_t> winner(static_cast<std::size_t>(width));
    float* acc = accumulator.data();
    int32_t* best = winner.data();
#pragma omp for schedule(dynamic, 64)
    for (int64_t s = 0; s < segments; ++s) {
      const int64_t begin = int64_t{offsets[s]};
      const int64_t end = int64_t{offsets[s + 1]};
      std::fill_n(acc, width, 0.0f);
      std::fill_n(best, width, -1);
      for (int64_t p = begin; p < end; ++p) {
        const int64_t row = row_map ? int64_t{row_map[p]} : p;
        const T* in = src + row * width;
        if (reduce == ReduceKind::Max) {
          for (int64_t j = 0; j < width; ++j) {
            const float value = load_float(in[j]);
            if (wins_over<true>(value, static_cast<int32_t>(row), acc[j], best[j])) {
              acc[j] = value;
              best[j] = static_cast<int32_t>(row);
            }
          }
        } else if (reduce == ReduceKind::Min) {
          for (int64_t j = 0; j < width; ++j) {
            const float value = load_float(in[j]);
            if (wins_over<false>(value, static_cast<int32_t>(row), acc[j], best[j])) {
              acc[j] = value;
              best[j] = static_cast<int32_t>(row);
            }
          }
        } else {
          for (int64_t j = 0; j < width; ++j) acc[j] += load_float(in[j]);
        }
      }
      const float count = static_cast<float>(end - begin);
      T* out_row = out + s * width;
      for (int64_t j = 0; j < width; ++j) {
        const float value = reduce == ReduceKind::Mean && end > begin ? acc[j] / count : acc[j];
        out_row[j] = store_as<T>(value);
      }
      if (keeps_argument) std::copy_n(best, width, argument + s * width);
    }
  }
}

template <typename T, typename Offset>
void spread_segments(const Offset* offsets, const int32_t* row_map, bool mean, int64_t segments, int64_t width,
                     const T* grad_out, T* grad_src) {
#pragma omp parallel for schedule(dynamic, 64) if (segments * width > 65536)
  for (int64_t s = 0; s < segments; ++s) {
    const int64_t begin = int64_t{offsets[s]};
    const int64_t end = int64_t{offsets[s + 1]};
    const float count = static_cast<float>(end - begin);
    const T* g = grad_out + s * width;
    for (int64_t p = begin; p < end; ++p) {
      T* destination = grad_src + (row_map ? int64_t{row_map[p]} : p) * width;
      for (int64_t j = 0; j < width; ++j) {
        destination[j] = mean ? store_as<T>(load_float(g[j]) / count) : g[j];
      }
    }
  }
}

}  // namespace

void segment_reduce_forward(Cpu, const Segments& segments, ReduceKind reduce, const Tensor& src, Tensor& out,
                            Tensor& argument) {
  const int64_t count = segments.csr.num_rows;
  const int64_t width = count == 0 ? 0 : out.numel() / count;
  if (out.numel() == 0) return;
  const int32_t* row_map = segments.row_map.defined() ? segments.row_map.data<int32_t>() : nullptr;
  int32_t* winners = argument.defined() ? argument.data<int32_t>() : nullptr;
  visit_floating(src.dtype(), [&](auto element) {
    using T = decltype(element);
    with_offsets(segments.csr.indptr, [&](const auto* offsets) {
      reduce_segments(offsets, row_map, reduce, count, width, src.data<T>(), out.data<T>(), winners);
    });
  });
}

void segment_reduce_backward(Cpu, const Segments& segments, ReduceKind reduce, const Tensor& grad_out,
                             Tensor& grad_src) {
  const int64_t count = segments.csr.num_rows;
  if (grad_out.numel() == 0 || grad_src.numel() == 0) return;
  const int64_t width = grad_out.numel() / count;
  const int32_t* row_map = segments.row_map.defined() ? segments.row_map.data<int32_t>() : nullptr;
  visit_floating(grad_out.dtype(), [&](auto element) {
    using T = decltype(element);
    with_offsets(segments.csr.indptr, [&](const auto* offsets) {
      spread_segments(offsets, row_map, reduce == ReduceKind::Mean, count, width, grad_out.data<T>(),
                      grad_src.data<T>());
    });
  });
}

void segment_argument_backward(Cpu, const Tensor& argument, const Tensor& grad_out, Tensor& grad_src) {
  const int64_t elements = argument.numel();
  const int64_t width = argument.dim() == 2 ? argument.size(1) : 0;
  visit_floating(grad_out.dtype(), [&](auto element) {
    using T = decltype(element);
    T* destination = grad_src.data<T>();
    std::fill_n(destination, grad_src.numel(), store_as<T>(0.0f));
    const T* g = grad_out.data<T>();
    const int32_t* winners = argument.data<int32_t>();
    const int64_t rows = width == 0 ? 0 : grad_src.numel() / width;
    for (int64_t i = 0; i < elements; ++i) {
      const int64_t row = int64_t{winners[i]};
      if (row >= 0 && row < rows) destination[row * width + i % width] = g[i];
    }
  });
}

}  // namespace sgnn::ops
