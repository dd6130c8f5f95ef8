// Argmax prediction shared by the CPU and CUDA backends.
#pragma once

#include <cstdint>

#include "core/philox.hpp"  // SGNN_HOST_DEVICE

namespace sgnn::ops {

// The first column holding the row's maximum (ties -> smallest class; NaN
// entries never win a comparison).
SGNN_HOST_DEVICE int64_t predicted_class(const float* row, int64_t classes) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c) {
    if (row[c] > row[best]) best = c;
  }
  return best;
}

}  // namespace sgnn::ops
