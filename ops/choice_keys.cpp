#include "ops/choice_keys.hpp"

#include "ops/vector_access.hpp"

namespace sgnn::ops {

std::string spmm_choice_key(int64_t heads, int64_t features, DType dtype, bool aligned) {
  const bool vector_ready = aligned && features % vector_elements(dtype) == 0;
  return std::string("spmm:") + (dtype == DType::BFloat16 ? "bf16:" : "") + "h" + std::to_string(heads) + ":f" +
         std::to_string(features) + (vector_ready ? "" : ":scalar");
}

std::string sddmm_choice_key(int64_t heads, int64_t features, bool vectorized, DType dtype, bool with_hrpb) {
  return "sddmm:h" + std::to_string(heads) + ":f" + std::to_string(features) + (vectorized ? "" : ":scalar") +
         (dtype == DType::BFloat16 ? ":bf16" : "") + (with_hrpb ? ":hrpb" : "");
}

std::string gatv2_choice_key(int64_t heads, int64_t features, DType dtype, bool with_backward) {
  return "gatv2:h" + std::to_string(heads) + ":f" + std::to_string(features) +
         (dtype == DType::BFloat16 ? ":bf16" : "") + (with_backward ? "" : ":forward");
}

std::string gspmm_extreme_choice_key(int64_t heads, int64_t features, DType dtype, bool vectorized) {
  return "gspmm-extreme:h" + std::to_string(heads) + ":f" + std::to_string(features) +
         (dtype == DType::BFloat16 ? ":bf16" : "") + (vectorized ? "" : ":scalar");
}

}  // namespace sgnn::ops
