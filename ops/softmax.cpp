#include "ops/softmax.hpp"

#include "core/autograd.hpp"
#include "ops/softmax_backend.hpp"

namespace sgnn::ops {

namespace {

Tensor apply_softmax(const char* name, bool log, const Tensor& x) {
  check_floating(x, name, "x");
  SGNN_CHECK(x.dim() >= 1, name, ": needs at least one axis, got shape ", shape_str(x.shape()));
  const int64_t cols = x.size(-1);
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), softmax_forward, log, x, cols, y);
  if (autograd::needs_recording({x})) {
    autograd::record(name, {x}, y, [log, cols, saved = y.detach()](const Tensor& grad, const autograd::NeedsGrad&) {
      Tensor grad_x = Tensor::empty_like(saved);
      SGNN_DISPATCH(saved.device(), softmax_backward, log, saved, grad, cols, grad_x);
      return std::vector<Tensor>{grad_x};
    });
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x) { return apply_softmax("softmax", false, x); }
Tensor log_softmax(const Tensor& x) { return apply_softmax("log_softmax", true, x); }

}  // namespace sgnn::ops
