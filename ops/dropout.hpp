// Inverted dropout, differentiable.
#pragma once

#include "core/generator.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

// training = false or p == 0: returns x itself. Otherwise takes
// stream = generator.next_stream(x.numel()); element i is kept iff
// stream.uniform16(i) >= p and then scaled by 1/(1-p), else zeroed (16-bit
// draws: an element is kept with probability 1 - p rounded down to a multiple
// of 2^-16, so at p = 0.6 with 0.399994 instead of 0.4). The mask
// depends only on the generator's state, not on the device: CPU and CUDA give
// the same mask bit for bit. The mask is not stored; backward regenerates it.
// Under a ReplayParameters recording (a captured training step) the stream
// comes from generator.next_draw: the kernels read its offset from device
// memory, so a replayed step draws the same mask as the eager step would.
// float32 or bfloat16 (the kept values scaled in float, rounded once: the
// same bits on both backends). p outside [0, 1) or an integer dtype ->
// InvalidArgument. A float32 x that carries its non-zeros
// (core/sparse_rows.hpp) gives a y that carries them too, masked the same.
Tensor dropout(const Tensor& x, float p, bool training, Generator& generator = default_generator());

}  // namespace sgnn::ops
