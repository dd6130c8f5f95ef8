// Backend entry points of ops/shape.hpp (see ops/backend.hpp).
//
// Concatenation along an axis is a copy of 2-D blocks: every input is viewed
// as [outer, width_j] and lands in columns [offset_j, offset_j + width_j) of
// the output viewed as [outer, Σ width_j].
#pragma once

#include <cstdint>
#include <vector>

#include "ops/backend.hpp"

namespace sgnn::ops {

void concat_forward(Cpu, const std::vector<Tensor>& xs, int64_t outer, Tensor& out);
void concat_forward(Cuda, const std::vector<Tensor>& xs, int64_t outer, Tensor& out);

// The inverse: pieces[j] (preallocated, float32) receives its columns of `whole`.
void split_backward(Cpu, const Tensor& whole, int64_t outer, std::vector<Tensor>& pieces);
void split_backward(Cuda, const Tensor& whole, int64_t outer, std::vector<Tensor>& pieces);

}  // namespace sgnn::ops
