// Helpers for the GPU tier: run the same op on the CPU and on the GPU and
// compare, with outputs poisoned (NaN) before every GPU run.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::testing {

inline constexpr Device kGpu = Device::cuda(0);

}  // namespace sgnn::testing
