#include "ops/activation.hpp"

#include "core/autograd.hpp"
#include "ops/activation_backend.hpp"

namespace sgnn::ops {

namespace {

const char* activation_name(Activation kind) {
  switch (kind) {
    case Activation::Relu: return "relu";
    case Activation::Elu: return "elu";
    case Activation::LeakyRelu: return "leaky_relu";
    case Activation::Sigmoid: return "sigmoid";
    case Activation::Tanh: return "tanh";
  }
  return "activation";
}

Tensor apply_activation(Activation kind, float parameter, const Tensor& x) {
  check_floating(x, activation_name(kind), "x");
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), activation_forward, kind, parameter, x, y);
  if (autograd::needs_recording({x})) {
    autograd::record(activation_name(kind), {x}, y,
                     [kind, parameter, saved = y.detach()](const Tensor& grad_y, const autograd::NeedsGrad&) {
                       Tensor grad_x = Tensor::empty_like(saved);
                       SGNN_DISPATCH(saved.device(), activation_backward, kind, parameter, saved, grad_y, grad_x);
                       return std::vector<Tensor>{grad_x};
                     });
  }
  return y;
}

}  // namespace

Tensor relu(const Tensor& x) { return apply_activation(Activation::Relu, 0.0f, x); }

Tensor elu(const Tensor& x, float alpha) {
  SGNN_CHECK(alpha > 0.0f, "elu: alpha must be positive, got ", alpha);
  return apply_activation(Activation::Elu, alpha, x);
}

Tensor leaky_relu(const Tensor& x, float negative_slope) {
  SGNN_CHECK(negative_slope >= 0.0f, "leaky_relu: negative_slope must be non-negative, got ", negative_slope);
  return apply_activation(Activation::LeakyRelu, negative_slope, x);
}

Tensor sigmoid(const Tensor& x) { return apply_activation(Activation::Sigmoid, 0.0f, x); }

Tensor tanh(const Tensor& x) { return apply_activation(Activation::Tanh, 0.0f, x); }

}  // namespace sgnn::ops
