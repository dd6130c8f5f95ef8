#include "training/nn/precision.hpp"

#include "core/error.hpp"

namespace sgnn::training {

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::Fp32:
      return "fp32";
    case Precision::Bf16:
      return "bf16";
  }
  return "?";
}

Precision parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::Fp32;
  if (text == "bf16") return Precision::Bf16;
  throw InvalidArgument(detail::concat("precision \"", text, "\" is not one this build knows (fp32, bf16)"));
}

DType activation_dtype(Precision precision) { return precision == Precision::Bf16 ? DType::BFloat16 : DType::Float32; }

}  // namespace sgnn::training
