// DType: the element types a Tensor can hold. float32 for values, bfloat16
// for values stored in half the bytes (mixed-precision training: activations
// and their gradients, core/bfloat16.hpp), int32 and int64 for indices (CSR
// offsets, edge ids, labels, node ids).
//
// The numbering is stored in files (section files): new types go at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/bfloat16.hpp"

namespace sgnn {

enum class DType : unsigned char { Float32, Int32, Int64, BFloat16 };
inline constexpr DType kLastDType = DType::BFloat16;

constexpr std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Int64: return 8;
    case DType::BFloat16: return 2;
    case DType::Float32:
    case DType::Int32: return 4;
  }
  return 4;
}

constexpr std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::BFloat16: return "bfloat16";
  }
  return "unknown";
}

// The value types: float32 and bfloat16 (what ops compute on and autograd differentiates).
constexpr bool is_floating(DType dtype) { return dtype == DType::Float32 || dtype == DType::BFloat16; }

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, bfloat16>) return DType::BFloat16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else static_assert(!sizeof(T), "Tensor element type must be float, bfloat16, int32_t or int64_t");
}

// Calls visit(T{}) with T = float or bfloat16 for a floating dtype (the
// element type of a kernel template); `dtype` must be floating.
template <typename Visit>
decltype(auto) visit_floating(DType dtype, Visit&& visit) {
  if (dtype == DType::BFloat16) return visit(bfloat16{});
  return visit(float{});
}

}  // namespace sgnn
