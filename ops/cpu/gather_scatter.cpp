// CPU reference of gather, the index checks' facts, the sort of an index and
// the rows of CSR entries (ops/gather_scatter_backend.hpp). OpenMP over rows.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/gather_scatter_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

void gather_rows_forward(Cpu, const Tensor& x, const Tensor& index, Tensor& out) {
  const int64_t count = index.numel();
  const int64_t rows = x.size(0);
  const int64_t width = count == 0 ? 0 : out.numel() / count;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* source = x.data<T>();
    T* destination = out.data<T>();
    const T nan = store_as<T>(std::numeric_limits<float>::quiet_NaN());
    with_offsets(index, [&](const auto* values) {
#pragma omp parallel for if (count * width > 65536)
      for (int64_t m = 0; m < count; ++m) {
        const int64_t row = int64_t{values[m]};
        if (row >= 0 && row < rows) {
          std::copy_n(source + row * width, width, destination + m * width);
        } else {
          std::fill_n(destination + m * width, width, nan);
        }
      }
    });
  });
}

IndexFacts index_facts(Cpu, const Tensor& index) {
  IndexFacts facts;
  with_offsets(index, [&](const auto* values) {
    const int64_t count = index.numel();
    facts.first = facts.min = facts.max = int64_t{values[0]};
    facts.last = int64_t{values[count - 1]};
    int64_t low = facts.min, high = facts.max, descents = 0;
#pragma omp parallel for reduction(min : low) reduction(max : high) reduction(+ : descents) if (count > 65536)
    for (int64_t i = 0; i < count; ++i) {
      const int64_t value = int64_t{values[i]};
      low = std::min(low, value);
      high = std::max(high, value);
      if (i > 0 && value < int64_t{values[i - 1]}) ++descents;
    }
    facts.min = low;
    facts.max = high;
    facts.descents = descents;
  });
  return facts;
}

// A counting sort: stable because the edges are placed in increasing order.
void sort_index(Cpu, const Tensor& index, int64_t num_outputs, Tensor& offsets, Tensor& order) {
  const int64_t count = index.numel();
  int32_t* starts = offsets.data<int32_t>();
  int32_t* edges = order.data<int32_t>();
  std::fill_n(starts, num_outputs + 1, 0);
  with_offsets(index, [&](const auto* values) {
    for (int64_t e = 0; e < count; ++e) {
      const int64_t n = int64_t{values[e]};
      if (n >= 0 && n < num_outputs) ++starts[n + 1];
    }
    for (int64_t n = 0; n < num_outputs; ++n) starts[n + 1] += starts[n];
    std::vector<int32_t> cursor(starts, starts + num_outputs);
    for (int64_t e = 0; e < count; ++e) {
      const int64_t n = int64_t{values[e]};
      if (n >= 0 && n < num_outputs) edges[cursor[static_cast<std::size_t>(n)]++] = static_cast<int32_t>(e);
    }
  });
}

void expand_offsets(Cpu, const Tensor& offsets, Tensor& rows) {
  const int64_t segments = offsets.numel() - 1;
  int32_t* out = rows.data<int32_t>();
  with_offsets(offsets, [&](const auto* starts) {
#pragma omp parallel for schedule(dynamic, 256) if (rows.numel() > 65536)
    for (int64_t s = 0; s < segments; ++s) {
      std::fill(out + starts[s], out + starts[s + 1], static_cast<int32_t>(s));
    }
  });
}

}  // namespace sgnn::ops
