// The 16-byte accesses of the sparse kernels as host code sees them: the
// elements one access moves, whether an address takes one, the width a
// zero-padded copy rounds a row up to (ops/cuda/pad_features.cuh), and the
// lanes of a subwarp that cover a row. The choices of ops/spmm_choice.hpp
// and ops/sddmm_choice.hpp and the CUDA launches share them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/dtype.hpp"

namespace sgnn::ops {

// Elements of `dtype` in one 16-byte access: 4 float32, 8 bfloat16.
inline int vector_elements(DType dtype) { return 16 / static_cast<int>(dtype_size(dtype)); }

// Whether 16-byte loads and stores may be used at this address.
inline bool vector_aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// `features` rounded up to a multiple of `vector`.
inline int64_t padded_width(int64_t features, int64_t vector) { return (features + vector - 1) / vector * vector; }

// Lanes of a subwarp for `count` accesses side by side: the next power of two, 1 to 32.
inline int subwarp_lanes(int64_t count) {
  return static_cast<int>(std::min<uint64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(count, 1))), 32));
}

}  // namespace sgnn::ops
