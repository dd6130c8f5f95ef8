#include "ops/activation_math.hpp"

namespace sgnn::ops {

void activation_forward(Cpu, Activation kind, float parameter, const Tensor& x, Tensor& y) {
  const int64_t n = x.numel();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* out = y.data<T>();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(activation_value(kind, parameter, load_float(in[i])));
  });
}

void activation_backward(Cpu, Activation kind, float parameter, const Tensor& y, const Tensor& grad_y,
                         Tensor& grad_x) {
  const int64_t n = y.numel();
  visit_floating(y.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* saved = y.data<T>();
    const T* upstream = grad_y.data<T>();
    T* out = grad_x.data<T>();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i) {
      out[i] = store_as<T>(activation_gradient(kind, parameter, load_float(saved[i]), load_float(upstream[i])));
    }
  });
}

}  // namespace sgnn::ops
