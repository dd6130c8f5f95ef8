#include <algorithm>

#include "ops/shape_backend.hpp"

namespace sgnn::ops {

void copy_block(Cpu, const Tensor& source, Tensor& destination, const BlockCopy& block) {
  if (block.rows == 0 || block.width == 0) return;
  const float* from = source.data<float>() + block.source_offset;
  float* to = destination.data<float>() + block.destination_offset;
#pragma omp parallel for if (block.rows * block.width > 65536)
  for (int64_t r = 0; r < block.rows; ++r) {
    std::copy_n(from + r * block.source_stride, block.width, to + r * block.destination_stride);
  }
}

}  // namespace sgnn::ops
