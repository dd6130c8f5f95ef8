#include <cstring>

#include "ops/shape_backend.hpp"

namespace sgnn::ops {

void copy_block(Cpu, const Tensor& source, Tensor& destination, const BlockCopy& block) {
  if (block.rows == 0 || block.width == 0) return;
  const auto element = static_cast<int64_t>(dtype_size(source.dtype()));
  const char* from = static_cast<const char*>(source.raw_data()) + block.source_offset * element;
  char* to = static_cast<char*>(destination.raw_data()) + block.destination_offset * element;
  const auto row_bytes = static_cast<std::size_t>(block.width * element);
#pragma omp parallel for if (block.rows * block.width > 65536)
  for (int64_t r = 0; r < block.rows; ++r) {
    std::memcpy(to + r * block.destination_stride * element, from + r * block.source_stride * element, row_bytes);
  }
}

}  // namespace sgnn::ops
