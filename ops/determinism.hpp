// Process-wide choice between the fastest sparse kernels and bit-identical
// results. By default SpMM adds the partial sums of rows it split into
// segments (ops/sparse_segments.hpp) with atomics, so their summation order,
// and hence the last bits of those rows, may vary between runs. With
// set_deterministic(true) split rows are instead reduced in a fixed order
// (partials to a workspace, then summed per row in segment order): every run
// on the same inputs gives the same bits, at the cost of one more launch and
// a workspace of [split segments, width] floats. Thread safe; read per call.
// The HRPB layout carries its own flag (graph_io::HrpbOptions::deterministic,
// fixed when it is built). Which kernels this affects: docs/determinism.md.
#pragma once

namespace sgnn::ops {

void set_deterministic(bool deterministic);
bool deterministic();

// Sets the mode for the life of the scope and restores the previous one on
// exit, also when an exception leaves the scope (the library may serve other
// code in the same process).
class DeterministicScope {
 public:
  explicit DeterministicScope(bool deterministic);
  ~DeterministicScope();
  DeterministicScope(const DeterministicScope&) = delete;
  DeterministicScope& operator=(const DeterministicScope&) = delete;

 private:
  bool previous_;
};

}  // namespace sgnn::ops
