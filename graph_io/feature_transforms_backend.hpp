// Backends of normalize_feature_rows: out[r, :] = in[r, :] / sum(in[r, :])
// (scale 1 where the sum is 0), sums accumulated in float64 on the host and
// float32 per warp on the GPU; In and Out float or bfloat16 (read as float,
// the quotient rounded once); the four pairs are instantiated. Pointers
// on the named device; rows * cols elements each; the CUDA version is queued
// on the library's stream.
#pragma once

#include <cstdint>

#include "core/bfloat16.hpp"
#include "core/device.hpp"

namespace sgnn::graph_io {

template <typename In, typename Out>
void normalize_feature_rows_cpu(const In* input, Out* output, int64_t rows, int64_t cols);
#ifdef SGNN_WITH_CUDA
template <typename In, typename Out>
void normalize_feature_rows_cuda(const In* input, Out* output, int64_t rows, int64_t cols, Device device);
#endif

}  // namespace sgnn::graph_io
