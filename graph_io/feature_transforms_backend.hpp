// Backends of normalize_feature_rows: out[r, :] = in[r, :] / sum(in[r, :])
// (scale 1 where the sum is 0), sums accumulated in float64 on the host and
// float32 per warp on the GPU, out float32 or bfloat16 (rounded once). Pointers
// on the named device; rows * cols elements each; the CUDA version is queued
// on the library's stream.
#pragma once

#include <cstdint>

#include "core/bfloat16.hpp"
#include "core/device.hpp"

namespace sgnn::graph_io {

void normalize_feature_rows_cpu(const float* input, float* output, int64_t rows, int64_t cols);
void normalize_feature_rows_cpu(const float* input, bfloat16* output, int64_t rows, int64_t cols);
#ifdef SGNN_WITH_CUDA
void normalize_feature_rows_cuda(const float* input, float* output, int64_t rows, int64_t cols, Device device);
void normalize_feature_rows_cuda(const float* input, bfloat16* output, int64_t rows, int64_t cols, Device device);
#endif

}  // namespace sgnn::graph_io
