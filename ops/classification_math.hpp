// Argmax prediction shared by the CPU and CUDA backends.
#pragma once

#include <cstdint>

#include "core/bfloat16.hpp"
#include "core/host_device.hpp"

namespace sgnn::ops {

// The first column holding the row's maximum (ties -> smallest class; NaN
// entries never win a comparison). T: float or bfloat16.
template <typename T>
SGNN_HOST_DEVICE int64_t predicted_class(const T* row, int64_t classes) {
  int64_t best = 0;
  float best_value = load_float(row[0]);
  for (int64_t c = 1; c < classes; ++c) {
    const float value = load_float(row[c]);
    if (value > best_value) {
      best = c;
      best_value = value;
    }
  }
  return best;
}

}  // namespace sgnn::ops
