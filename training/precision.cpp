#include "training/precision.hpp"

#include "core/error.hpp"

namespace sgnn::training {

const char* precision_name(Precision precision) {
  return precision == Precision::BFloat16 ? "bf16" : "fp32";
}

Precision parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::Float32;
  if (text == "bf16") return Precision::BFloat16;
  throw InvalidArgument(detail::concat("precision must be fp32 or bf16, got \"", text, "\""));
}

DType activation_dtype(Precision precision) {
  return precision == Precision::BFloat16 ? DType::BFloat16 : DType::Float32;
}

}  // namespace sgnn::training
