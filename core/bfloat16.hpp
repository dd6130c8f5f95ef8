// bfloat16: the storage type of BF16 tensors (DType::BFloat16), usable in
// host code and in CUDA kernels.
//
// Layout: the upper 16 bits of an IEEE float32 (1 sign, 8 exponent, 7
// stored mantissa bits), the bits of CUDA's __nv_bfloat16, so a device
// pointer to bfloat16 may be reinterpreted as __nv_bfloat16 / __nv_bfloat162.
// Same exponent range as float32 (no overflow where float32 has none, hence
// no loss scaling); 8 significant bits: unit roundoff u = 2^-8 ≈ 3.9e-3.
//
// Conversions: to float is exact (the bits shifted up). From float rounds to
// nearest, ties to even, by the same integer arithmetic on the host and in
// kernels, so the CPU and CUDA backends round bit-identically (cvt.rn.bf16.f32
// gives the same result on every non-NaN input). ±Inf stays ±Inf; a value
// beyond the largest finite bfloat16 rounds to ±Inf; NaN becomes a quiet NaN
// with its sign.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace sgnn {

struct bfloat16 {
  uint16_t bits;

  bfloat16() = default;  // trivial: usable in shared memory, std::vector, memcpy
  SGNN_HOST_DEVICE explicit bfloat16(float value) : bits(round_bits(value)) {}
  SGNN_HOST_DEVICE explicit operator float() const { return to_float(); }

  SGNN_HOST_DEVICE static bfloat16 from_bits(uint16_t raw) {
    bfloat16 result;
    result.bits = raw;
    return result;
  }

  SGNN_HOST_DEVICE float to_float() const {
    const uint32_t wide = static_cast<uint32_t>(bits) << 16;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(wide);
#else
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
#endif
  }

  // Round to nearest, ties to even: add 0x7FFF plus the lowest kept bit, then
  // truncate. A carry out of the mantissa moves to the exponent, which is the
  // correct rounding up (to the next binade, or to Inf past the largest finite).
  SGNN_HOST_DEVICE static uint16_t round_bits(float value) {
#if defined(__CUDA_ARCH__)
    const uint32_t wide = __float_as_uint(value);
#else
    uint32_t wide;
    std::memcpy(&wide, &value, sizeof wide);
#endif
    if ((wide & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((wide >> 16) | 0x0040u);  // quiet NaN
    const uint32_t lowest_kept = (wide >> 16) & 1u;
    return static_cast<uint16_t>((wide + 0x7FFFu + lowest_kept) >> 16);
  }
};

static_assert(sizeof(bfloat16) == 2, "bfloat16 must be 2 bytes (the bits of __nv_bfloat16)");

// Element access shared by the float32 and bfloat16 paths of every backend:
// load as float, compute in float, store rounded to the element type.
SGNN_HOST_DEVICE float load_float(float value) { return value; }
SGNN_HOST_DEVICE float load_float(bfloat16 value) { return value.to_float(); }

template <typename T>
SGNN_HOST_DEVICE T store_as(float value);
template <>
SGNN_HOST_DEVICE float store_as<float>(float value) {
  return value;
}
template <>
SGNN_HOST_DEVICE bfloat16 store_as<bfloat16>(float value) {
  return bfloat16(value);
}

#if defined(__CUDACC__)
// Read through the read-only data cache (__ldg), as float.
__device__ __forceinline__ float load_float_readonly(const float* pointer) { return __ldg(pointer); }
__device__ __forceinline__ float load_float_readonly(const bfloat16* pointer) {
  return bfloat16::from_bits(__ldg(reinterpret_cast<const unsigned short*>(pointer))).to_float();
}
#endif

// The value a float takes once stored as T (rounded for bfloat16).
template <typename T>
SGNN_HOST_DEVICE float round_to(float value) {
  return load_float(store_as<T>(value));
}

}  // namespace sgnn
