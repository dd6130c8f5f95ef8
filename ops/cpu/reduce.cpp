#include <algorithm>

#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {
constexpr int64_t kColumnChunk = 64;  // columns summed together: rows are read contiguously
}

// Sums in double: the CPU backend is the reference the GPU is checked against.
void sum_axis(Cpu, const Tensor& x, AxisLayout layout, float factor, Tensor& out) {
  const int64_t chunks = (layout.inner + kColumnChunk - 1) / kColumnChunk;
  const int64_t tasks = layout.outer * chunks;
  visit_floating(x.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      const In* in = x.data<In>();
      Out* result = out.data<Out>();
#pragma omp parallel for if (tasks > 1 && x.numel() > 65536)
      for (int64_t task = 0; task < tasks; ++task) {
        const int64_t o = task / chunks;
        const int64_t i0 = (task % chunks) * kColumnChunk;
        const int64_t width = std::min(kColumnChunk, layout.inner - i0);
        double total[kColumnChunk] = {};
        const In* block = in + o * layout.extent * layout.inner + i0;
        for (int64_t k = 0; k < layout.extent; ++k) {
          const In* row = block + k * layout.inner;
          for (int64_t i = 0; i < width; ++i) total[i] += static_cast<double>(load_float(row[i]));
        }
        for (int64_t i = 0; i < width; ++i) {
          result[o * layout.inner + i0 + i] = store_as<Out>(static_cast<float>(total[i] * static_cast<double>(factor)));
        }
      }
    });
  });
}

void broadcast_axis(Cpu, const Tensor& g, AxisLayout layout, float factor, Tensor& out) {
  const int64_t rows = layout.outer * layout.extent;
  visit_floating(g.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      const In* in = g.data<In>();
      Out* result = out.data<Out>();
#pragma omp parallel for if (rows * layout.inner > 65536)
      for (int64_t r = 0; r < rows; ++r) {
        Out* row = result + r * layout.inner;
        const In* source = in + (r / layout.extent) * layout.inner;
        for (int64_t i = 0; i < layout.inner; ++i) row[i] = store_as<Out>(load_float(source[i]) * factor);
      }
    });
  });
}

}  // namespace sgnn::ops
