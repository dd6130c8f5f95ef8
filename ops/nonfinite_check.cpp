#include "ops/nonfinite_check.hpp"

#include "ops/nonfinite_check_backend.hpp"

namespace sgnn::ops {

NonfiniteReport find_nonfinite(const Tensor& x) {
  check_defined(x, "find_nonfinite", "x");
  if (!is_floating(x.dtype()) || x.numel() == 0) return {};
  NonfiniteReport report = SGNN_DISPATCH(x.device(), count_nonfinite, x);
  if (report.count > 0) {
    // Only on the error path: one more element read back.
    visit_floating(x.dtype(), [&](auto element) {
      using T = decltype(element);
      T value;
      memory::copy(&value, Device::cpu(), x.data<T>() + report.first_index, x.device(), sizeof(T));
      report.first_value = load_float(value);
    });
  }
  return report;
}

void require_finite(const Tensor& x, std::string_view what) {
  const NonfiniteReport report = find_nonfinite(x);
  if (report.all_finite()) return;
  throw NumericalError(::sgnn::detail::concat(what, ": ", report.count, " of ", x.numel(), " values are NaN or Inf (the first, at flat index ",
                                      report.first_index, " of shape ", shape_str(x.shape()), ", is ",
                                      report.first_value, ")"));
}

}  // namespace sgnn::ops
