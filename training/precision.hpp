// Precision: how a model computes, set per model (Module::set_precision) or
// per experiment (ExperimentOptions::precision, --precision), never globally.
//
//   Float32   everything float32.
//   BFloat16  mixed precision: features, activations and their gradients are
//             stored as bfloat16; every reduction accumulates in float
//             (matmul, sums, softmax, edge softmax, loss); the loss and its
//             value are float32. Weights keep float32 masters that the
//             optimizer updates, with bfloat16 copies for the GEMMs written
//             by the same Adam pass. No loss scaling: bfloat16 has float32's
//             exponent range (docs/mixed_precision.md).
#pragma once

#include <string>

#include "core/dtype.hpp"

namespace sgnn::training {

enum class Precision : unsigned char { Float32, BFloat16 };

const char* precision_name(Precision precision);  // "fp32", "bf16"
// "fp32" | "bf16" -> Precision; anything else -> InvalidArgument.
Precision parse_precision(const std::string& text);
// The dtype of activations (and of their gradients) at this precision.
DType activation_dtype(Precision precision);

}  // namespace sgnn::training
