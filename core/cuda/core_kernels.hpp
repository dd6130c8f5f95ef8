// The few kernels the core itself needs: filling a tensor and summing two
// gradients. Everything else lives in ops/.
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/dtype.hpp"

namespace sgnn::detail {

// data[0..count) = value, converted to `dtype`, on the library's stream of `device`.
void fill_cuda(void* data, int64_t count, DType dtype, double value, Device device);
// out[i] = a[i] + b[i] for arrays of `count` elements of a floating `dtype`
// (bfloat16: summed in float, rounded once).
void add_cuda(const void* a, const void* b, void* out, DType dtype, int64_t count, Device device);

}  // namespace sgnn::detail
