// The arithmetic of g-SpMM messages and g-SDDMM operations, one formula
// compiled into both backends (ops/cpu/gspmm.cpp, ops/cuda/gspmm*.cu).
#pragma once

#include "core/host_device.hpp"
#include "ops/message_passing.hpp"

namespace sgnn::ops {

// message(u, e) of g-SpMM (CopyU ignores e, CopyE ignores u).
SGNN_HOST_DEVICE float apply_message(MessageKind kind, float u, float e) {
  switch (kind) {
    case MessageKind::CopyU: return u;
    case MessageKind::CopyE: return e;
    case MessageKind::UMulE: return u * e;
    case MessageKind::UAddE: return u + e;
    case MessageKind::USubE: return u - e;
    case MessageKind::UDivE: return u / e;
  }
  return u;
}

// ∂message/∂u and ∂message/∂e.
SGNN_HOST_DEVICE float message_gradient_u(MessageKind kind, float /*u*/, float e) {
  switch (kind) {
    case MessageKind::CopyE: return 0.0f;
    case MessageKind::UMulE: return e;
    case MessageKind::UDivE: return 1.0f / e;
    default: return 1.0f;
  }
}
SGNN_HOST_DEVICE float message_gradient_e(MessageKind kind, float u, float e) {
  switch (kind) {
    case MessageKind::CopyU: return 0.0f;
    case MessageKind::UMulE: return u;
    case MessageKind::USubE: return -1.0f;
    case MessageKind::UDivE: return -u / (e * e);
    default: return 1.0f;
  }
}

// op(lhs, rhs) of g-SDDMM per element (Dot: the product, summed by the caller).
SGNN_HOST_DEVICE float apply_binary(BinaryKind kind, float lhs, float rhs) {
  switch (kind) {
    case BinaryKind::Add: return lhs + rhs;
    case BinaryKind::Sub: return lhs - rhs;
    case BinaryKind::Div: return lhs / rhs;
    case BinaryKind::CopyLhs: return lhs;
    case BinaryKind::CopyRhs: return rhs;
    default: return lhs * rhs;  // Mul, Dot
  }
}

// Whether `candidate` replaces the running `best` (none yet: `have_best`
// false) of a Max (sign +1) or Min (sign −1) reduction, the rule of
// ops/reduce_kind.hpp: a NaN wins over every number and stays (as torch's
// amax, and the segment reductions' ops/segment_reduce_math.hpp), and a
// strictly better number replaces, so the first of equal messages stays.
SGNN_HOST_DEVICE bool replaces(float candidate, float best, bool have_best, float sign) {
  if (!have_best) return true;
  if (best != best) return false;
  return candidate != candidate || sign * candidate > sign * best;
}

}  // namespace sgnn::ops
