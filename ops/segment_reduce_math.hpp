// The Max/Min rule of the segment reductions, shared by the CPU and CUDA
// backends so that both pick the same winner bit for bit, whatever order
// the candidates are combined in (sequentially, across lanes, across the
// partials of a split row): the rule is a total order on (value, row).
//   - a NaN beats every number; between NaNs the lower row wins;
//   - otherwise the larger value (Max) or the smaller (Min) wins, and
//     between equal values (−0 equals +0) the lower row;
//   - row −1 stands for "nothing yet" and loses to any candidate.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace sgnn::ops {

template <bool kMax>
SGNN_HOST_DEVICE bool wins_over(float value, int32_t row, float best_value, int32_t best_row) {
  if (row < 0) return false;
  if (best_row < 0) return true;
  const bool value_nan = value != value;
  const bool best_nan = best_value != best_value;
  if (value_nan || best_nan) return value_nan && (!best_nan || row < best_row);
  if (value == best_value) return row < best_row;
  return kMax ? value > best_value : value < best_value;
}

}  // namespace sgnn::ops
