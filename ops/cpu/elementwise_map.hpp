// Parallel maps over tensors of one floating dtype, read as float and stored
// rounded once to that dtype: the CPU loops of the activation and math
// families, whose formulas come as functors (ops/*_math.hpp).
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// y[i] = f(x[i]); x and y of one dtype and numel.
template <typename F>
void map_elements(const Tensor& x, Tensor& y, F f) {
  const int64_t n = x.numel();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(f(load_float(in[i])));
  });
}

// out[i] = f(a[i], b[i]); all three of one dtype and numel.
template <typename F>
void map_elements(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const int64_t n = a.numel();
  visit_floating(a.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* first = a.data<T>();
    const T* second = b.data<T>();
    T* result = out.data<T>();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i) result[i] = store_as<T>(f(load_float(first[i]), load_float(second[i])));
  });
}

}  // namespace sgnn::ops
