#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

namespace {

template <typename A, typename B, typename Out>
void binary_loop(BinaryOp op, const A* x, const B* y, Out* z, int64_t n, int64_t period) {
  const int64_t rows = n / period;
  // Row by row over b's period: the inner loop has no modulo and vectorises.
#pragma omp parallel for if (n > 65536)
  for (int64_t r = 0; r < rows; ++r) {
    const A* xr = x + r * period;
    Out* zr = z + r * period;
    if (op == BinaryOp::Add) {
#pragma omp simd
      for (int64_t i = 0; i < period; ++i) zr[i] = store_as<Out>(load_float(xr[i]) + load_float(y[i]));
    } else {
#pragma omp simd
      for (int64_t i = 0; i < period; ++i) zr[i] = store_as<Out>(load_float(xr[i]) * load_float(y[i]));
    }
  }
}

}  // namespace

void binary_forward(Cpu, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t n = a.numel();
  if (n == 0) return;
  visit_floating(a.dtype(), [&](auto a_element) {
    visit_floating(b.dtype(), [&](auto b_element) {
      visit_floating(out.dtype(), [&](auto out_element) {
        using A = decltype(a_element);
        using B = decltype(b_element);
        using Out = decltype(out_element);
        binary_loop(op, a.data<A>(), b.data<B>(), out.data<Out>(), n, b.numel());
      });
    });
  });
}

void scale_forward(Cpu, const Tensor& x, float factor, Tensor& out) {
  const int64_t n = x.numel();
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* in = x.data<T>();
    T* result = out.data<T>();
#pragma omp parallel for simd if (n > 65536)
    for (int64_t i = 0; i < n; ++i) result[i] = store_as<T>(load_float(in[i]) * factor);
  });
}

}  // namespace sgnn::ops
