// Calls f with the typed pointer of a CSR offset tensor (indptr, or an edge
// map): int32 when nnz < 2^31, int64 beyond (core/csr.hpp), so every sparse
// kernel and loop is written once over the offset type.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::ops {

template <typename Function>
decltype(auto) with_offsets(const Tensor& offsets, Function&& f) {
  if (offsets.dtype() == DType::Int64) return f(offsets.data<int64_t>());
  return f(offsets.data<int32_t>());
}

}  // namespace sgnn::ops
