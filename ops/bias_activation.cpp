#include "ops/bias_activation.hpp"

#include "core/autograd.hpp"
#include "ops/bias_activation_backend.hpp"

namespace sgnn::ops {

Tensor bias_activation(const Tensor& x, const Tensor& bias, FusedActivation activation, float parameter) {
  constexpr const char* op = "bias_activation";
  check_floating(x, op, "x");
  SGNN_CHECK(x.dim() >= 1, op, ": x needs at least one axis, got shape ", shape_str(x.shape()));
  if (bias.defined()) {
    check_floating(bias, op, "bias");
    check_same_device(x, bias, op);
    SGNN_CHECK(bias.shape() == Shape{x.size(-1)}, op, ": bias of shape ", shape_str(bias.shape()),
               " does not match the last axis of x ", shape_str(x.shape()));
  }
  if (activation == FusedActivation::Elu) SGNN_CHECK(parameter > 0.0f, op, ": ELU alpha must be > 0, got ", parameter);
  if (activation == FusedActivation::LeakyRelu) {
    SGNN_CHECK(parameter >= 0.0f, op, ": LeakyReLU slope must be >= 0, got ", parameter);
  }
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), bias_activation_forward, activation, parameter, x, bias, y);
  if (autograd::needs_recording({x, bias})) {
    autograd::record(op, {x, bias}, y,
                     [activation, parameter, saved = y.detach(),
                      bias_dtype = bias.defined() ? bias.dtype() : DType::Float32, has_bias = bias.defined()](
                         const Tensor& grad_y, const autograd::NeedsGrad& needs) {
                       Tensor grad_x = Tensor::empty_like(saved);
                       Tensor grad_bias;
                       if (has_bias && needs[1]) {
                         grad_bias = Tensor::empty({saved.size(-1)}, bias_dtype, saved.device());
                       }
                       SGNN_DISPATCH(saved.device(), bias_activation_backward, activation, parameter, saved, grad_y,
                                     grad_x, grad_bias);
                       return std::vector<Tensor>{needs[0] ? grad_x : Tensor(), grad_bias};
                     });
  }
  return y;
}

}  // namespace sgnn::ops
