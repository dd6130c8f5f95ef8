#include "ops/cast_backend.hpp"

namespace sgnn::ops {

void cast_copy(Cpu, const Tensor& x, Tensor& out) {
  const int64_t n = x.numel();
  visit_floating(x.dtype(), [&](auto input_element) {
    visit_floating(out.dtype(), [&](auto output_element) {
      using In = decltype(input_element);
      using Out = decltype(output_element);
      const In* in = x.data<In>();
      Out* result = out.data<Out>();
#pragma omp parallel for if (n > 65536)
      for (int64_t i = 0; i < n; ++i) result[i] = store_as<Out>(load_float(in[i]));
    });
  });
}

}  // namespace sgnn::ops
