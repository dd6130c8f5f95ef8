#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nonfinite_check_backend.hpp"

namespace sgnn::ops {

NonfiniteReport count_nonfinite(Cpu, const Tensor& x) {
  const int64_t n = x.numel();
  int64_t count = 0;
  int64_t first = std::numeric_limits<int64_t>::max();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* values = x.data<T>();
#pragma omp parallel for reduction(+ : count) reduction(min : first) if (n > 65536)
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(load_float(values[i]))) {
        ++count;
        first = std::min(first, i);
      }
    }
  });
  NonfiniteReport report;
  report.count = count;
  report.first_index = count > 0 ? first : -1;
  return report;
}

}  // namespace sgnn::ops
