#include "ops/reduce.hpp"

#include "core/autograd.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

// Sums x over the middle axis of `layout` times `factor` into `out_shape`, and
// records the broadcasting backward.
Tensor reduce(const char* name, const Tensor& x, AxisLayout layout, float factor, const Shape& out_shape) {
  Tensor out = Tensor::empty(out_shape, x.dtype(), x.device());
  SGNN_DISPATCH(x.device(), sum_axis, x, layout, factor, out);
  if (autograd::needs_recording({x})) {
    autograd::record(name, {x}, out,
                     [layout, factor, x_shape = x.shape()](const Tensor& grad, const autograd::NeedsGrad&) {
                       Tensor grad_x = Tensor::empty(x_shape, grad.dtype(), grad.device());
                       SGNN_DISPATCH(grad.device(), broadcast_axis, grad, layout, factor, grad_x);
                       return std::vector<Tensor>{grad_x};
                     });
  }
  return out;
}

Tensor reduce_all(const char* name, const Tensor& x, bool average) {
  check_floating(x, name, "x");
  const int64_t n = x.numel();
  const float factor = average ? static_cast<float>(1.0 / static_cast<double>(n)) : 1.0f;
  return reduce(name, x, AxisLayout{1, n, 1}, factor, Shape{});
}

Tensor reduce_axis(const char* name, const Tensor& x, int64_t axis, bool average) {
  check_floating(x, name, "x");
  const int64_t rank = x.dim();
  const int64_t resolved = axis < 0 ? axis + rank : axis;
  SGNN_CHECK(resolved >= 0 && resolved < rank, name, ": axis ", axis, " out of range for a tensor of shape ",
             shape_str(x.shape()));
  AxisLayout layout;
  Shape out_shape;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t extent = x.shape()[static_cast<std::size_t>(i)];
    if (i < resolved) layout.outer *= extent;
    if (i > resolved) layout.inner *= extent;
    if (i != resolved) out_shape.push_back(extent);
  }
  layout.extent = x.shape()[static_cast<std::size_t>(resolved)];
  const float factor = average ? static_cast<float>(1.0 / static_cast<double>(layout.extent)) : 1.0f;
  return reduce(name, x, layout, factor, out_shape);
}

}  // namespace

Tensor sum(const Tensor& x) { return reduce_all("sum", x, false); }
Tensor mean(const Tensor& x) { return reduce_all("mean", x, true); }
Tensor sum(const Tensor& x, int64_t axis) { return reduce_axis("sum", x, axis, false); }
Tensor mean(const Tensor& x, int64_t axis) { return reduce_axis("mean", x, axis, true); }

}  // namespace sgnn::ops
