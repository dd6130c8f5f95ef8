// DType: the element types a Tensor can hold. float32 for values, int32 and
// int64 for indices (CSR offsets, edge ids, labels, node ids).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace sgnn {

enum class DType : unsigned char { Float32, Int32, Int64 };

constexpr std::size_t dtype_size(DType dtype) {
  return dtype == DType::Int64 ? 8 : 4;
}

constexpr std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
  }
  return "unknown";
}

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else static_assert(!sizeof(T), "Tensor element type must be float, int32_t or int64_t");
}

}  // namespace sgnn
