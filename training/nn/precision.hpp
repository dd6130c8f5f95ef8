// Precision: the number format a model computes in, set per model
// (Module::set_precision, ModelDescription::precision for make_model, recorded in its
// ModelDescription) or per experiment (ExperimentOptions::precision,
// --precision), never globally.
//
//   Fp32  everything float32.
//   Bf16  mixed precision: features, activations and their gradients are
//         stored as bfloat16; every reduction accumulates in float (matmul,
//         sums, softmax, edge softmax, loss); the loss and its value are
//         float32. Weights keep float32 masters that the optimizer updates,
//         with bfloat16 copies for the GEMMs written by the same Adam pass.
//         No loss scaling: bfloat16 has float32's exponent range
//         (docs/mixed_precision.md).
#pragma once

#include <string_view>

#include "core/dtype.hpp"

namespace sgnn::training {

enum class Precision : unsigned char { Fp32, Bf16 };

const char* precision_name(Precision precision);  // "fp32", "bf16"
// The inverse of precision_name; InvalidArgument naming the precisions this build knows.
Precision parse_precision(std::string_view text);
// The dtype of activations (and of their gradients) at this precision.
DType activation_dtype(Precision precision);

}  // namespace sgnn::training
