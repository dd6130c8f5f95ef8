// Backend entry points of ops/shape.hpp (see ops/backend.hpp).
//
// Concatenation along an axis is a copy of 2-D blocks: every input is viewed
// as [outer, width_j] and lands in columns [offset_j, offset_j + width_j) of
// the output viewed as [outer, Σ width_j]; the gradient is split back the
// same way. Both directions are made of copy_block calls.
#pragma once

#include <cstdint>

#include "ops/backend.hpp"

namespace sgnn::ops {

// A block of `rows` × `width` elements (of source's dtype, which destination shares): row r starts at
// source[source_offset + r·source_stride] and goes to
// destination[destination_offset + r·destination_stride] (offsets and strides
// in elements). Source and destination on the same device, not overlapping.
struct BlockCopy {
  int64_t source_offset, source_stride, destination_offset, destination_stride, rows, width;
};
void copy_block(Cpu, const Tensor& source, Tensor& destination, const BlockCopy& block);
void copy_block(Cuda, const Tensor& source, Tensor& destination, const BlockCopy& block);

}  // namespace sgnn::ops
