// The fused epilogue's formulas, shared by the CPU and CUDA backends; the
// activations themselves come from ops/activation_math.hpp, so the fused and
// the separate ops compute exactly the same function.
#pragma once

#include "ops/activation_math.hpp"
#include "ops/bias_activation.hpp"

namespace sgnn::ops {

SGNN_HOST_DEVICE Activation as_activation(FusedActivation activation) {
  return activation == FusedActivation::Elu         ? Activation::Elu
         : activation == FusedActivation::LeakyRelu ? Activation::LeakyRelu
                                                    : Activation::Relu;
}

SGNN_HOST_DEVICE float fused_value(FusedActivation activation, float parameter, float z) {
  return activation == FusedActivation::None ? z : activation_value(as_activation(activation), parameter, z);
}

SGNN_HOST_DEVICE float fused_gradient(FusedActivation activation, float parameter, float y, float grad_y) {
  return activation == FusedActivation::None ? grad_y
                                             : activation_gradient(as_activation(activation), parameter, y, grad_y);
}

}  // namespace sgnn::ops
