// Row helpers of the losses shared by the CPU and CUDA backends.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace sgnn::ops {

// The row of selected entry e, or −1 when the entry's index or the row's
// label is out of range (the entry then contributes NaN and no gradient).
SGNN_HOST_DEVICE int64_t selected_row(int64_t e, const int32_t* index, const int32_t* labels, int64_t rows,
                                      int64_t classes) {
  const int64_t row = index != nullptr ? static_cast<int64_t>(index[e]) : e;
  if (row < 0 || row >= rows) return -1;
  const int32_t label = labels[row];
  return label >= 0 && label < classes ? row : -1;
}

}  // namespace sgnn::ops
