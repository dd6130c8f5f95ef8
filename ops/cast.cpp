#include "ops/cast.hpp"

#include "core/autograd.hpp"
#include "ops/cast_backend.hpp"

namespace sgnn::ops {

namespace {

Tensor converted(const Tensor& x, DType dtype) {
  Tensor out = Tensor::empty(x.shape(), dtype, x.device());
  SGNN_DISPATCH(x.device(), cast_copy, x, out);
  return out;
}

}  // namespace

Tensor cast(const Tensor& x, DType dtype) {
  check_floating(x, "cast", "x");
  SGNN_CHECK(is_floating(dtype), "cast: the target dtype must be float32 or bfloat16, got ", dtype_name(dtype));
  if (x.dtype() == dtype) return x;
  Tensor out = converted(x, dtype);
  if (autograd::needs_recording({x})) {
    autograd::record("cast", {x}, out, [source = x.dtype()](const Tensor& grad, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{converted(grad, source)};
    });
  }
  return out;
}

void cast_into(Tensor& destination, const Tensor& source) {
  check_floating(destination, "cast_into", "destination");
  check_floating(source, "cast_into", "source");
  check_same_device(destination, source, "cast_into");
  SGNN_CHECK(destination.shape() == source.shape(), "cast_into: source ", shape_str(source.shape()),
             " does not match destination ", shape_str(destination.shape()));
  SGNN_DISPATCH(source.device(), cast_copy, source, destination);
}

}  // namespace sgnn::ops
