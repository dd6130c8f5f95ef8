// The few kernels the core itself needs: filling a tensor and summing two
// gradients. Everything else lives in ops/.
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/dtype.hpp"

namespace sgnn::detail {

// data[0..count) = value, converted to `dtype`, on the library's stream of `device`.
void fill_cuda(void* data, int64_t count, DType dtype, double value, Device device);
// out[i] = a[i] + b[i] for float32 arrays of `count` elements.
void add_cuda(const float* a, const float* b, float* out, int64_t count, Device device);

}  // namespace sgnn::detail
