// Process-wide choice between the fastest sparse kernels and bit-identical
// results. By default SpMM adds the partial sums of rows it split into
// segments (ops/sparse_segments.hpp) with atomics, so their summation order,
// and hence the last bits of those rows, may vary between runs. With
// set_deterministic(true) split rows are instead reduced in a fixed order
// (partials to a workspace, then summed per row in segment order): every run
// on the same inputs gives the same bits, at the cost of one more launch and
// a workspace of [split segments, width] floats. Thread safe; read per call.
#pragma once

namespace sgnn::ops {

void set_deterministic(bool deterministic);
bool deterministic();

}  // namespace sgnn::ops
