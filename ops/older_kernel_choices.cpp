#include "ops/older_kernel_choices.hpp"

#include <charconv>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/choice_keys.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

// The shape an older key names after its prefix: "[bf16:]h<H>:f<F>[:scalar]"
// (heads 1 where the key has no "h<H>:").
struct OlderShape {
  DType dtype = DType::Float32;
  int64_t heads = 1;
  int64_t features = 0;
  bool scalar = false;
};

std::optional<OlderShape> older_shape(std::string_view rest, bool with_heads) {
  OlderShape shape;
  const auto take = [&](std::string_view prefix) {
    if (!rest.starts_with(prefix)) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  const auto number = [&](int64_t& value) {
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (error != std::errc() || end == rest.data() || value < 1) return false;
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    return true;
  };
  if (take("bf16:")) shape.dtype = DType::BFloat16;
  if (with_heads && !(take("h") && number(shape.heads) && take(":"))) return std::nullopt;
  if (!take("f") || !number(shape.features)) return std::nullopt;
  shape.scalar = take(":scalar");
  if (!rest.empty()) return std::nullopt;
  return shape;
}

std::string older_tile_key(const OlderShape& shape, int64_t features) {
  return std::string("spmm-tile:") + (shape.dtype == DType::BFloat16 ? "bf16:" : "") + "h" +
         std::to_string(shape.heads) + ":f" + std::to_string(features);
}

std::string joined(const std::string& first, const std::string& second) {
  if (first.empty() || second.empty()) return first + second;
  return first + " " + second;
}

}  // namespace

KernelChoiceMap with_current_keys(const KernelChoiceMap& choices) {
  KernelChoiceMap current;
  // Today's SpMM key -> its format part and its launch part.
  std::map<std::string, std::pair<std::string, std::string>> spmm;
  std::vector<std::pair<OlderShape, std::string>> sddmm_padded;
  for (const auto& [key, variant] : choices) {
    if (key.starts_with("spmm-tile:")) {
      const std::optional<OlderShape> shape = older_shape(std::string_view(key).substr(10), true);
      if (shape && !shape->scalar && shape->features % vector_elements(shape->dtype) == 0) {
        spmm[spmm_choice_key(shape->heads, shape->features, shape->dtype)].second = variant;
      }
    } else if (key.starts_with("spmm-format:")) {
      if (const std::optional<OlderShape> shape = older_shape(std::string_view(key).substr(12), false)) {
        spmm[spmm_choice_key(1, shape->features, shape->dtype)].first = variant;
      }
    } else if (key.starts_with("spmm-padded:")) {
      const std::optional<OlderShape> shape = older_shape(std::string_view(key).substr(12), true);
      if (!shape) continue;
      std::string launch;
      if (variant == "direct") launch = "direct";
      if (variant == "padded") {
        const auto tile = choices.find(
            older_tile_key(*shape, padded_width(shape->features, vector_elements(shape->dtype))));
        if (tile != choices.end()) launch = "padded " + tile->second;
      }
      if (!launch.empty()) spmm[spmm_choice_key(shape->heads, shape->features, shape->dtype, false)].second = launch;
    } else if (key.starts_with("sddmm-padded:")) {
      if (const std::optional<OlderShape> shape = older_shape(std::string_view(key).substr(13), true)) {
        sddmm_padded.emplace_back(*shape, variant);
      }
    } else if (!key.starts_with("gspmm-extreme-order:")) {
      current[key] = variant;
    }
  }
  for (const auto& [key, parts] : spmm) current[key] = joined(parts.first, parts.second);
  for (const auto& [shape, variant] : sddmm_padded) {
    const std::string scalar_key = sddmm_choice_key(shape.heads, shape.features, false, shape.dtype);
    if (variant != "padded") continue;  // "direct": the ":scalar" key names the kernel
    current.erase(scalar_key);
    const int64_t padded = padded_width(shape.features, vector_elements(shape.dtype));
    for (const bool with_hrpb : {false, true}) {
      const auto kernel = choices.find(sddmm_choice_key(shape.heads, padded, true, shape.dtype, with_hrpb));
      if (kernel != choices.end()) current[scalar_key] = "padded " + kernel->second;
    }
  }
  return current;
}

}  // namespace sgnn::ops
