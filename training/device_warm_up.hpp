// Starts what the first use of a CUDA device would otherwise start in the
// middle of the first epoch: the context, the library's stream and memory
// pool, cuBLAS's handle and workspace. Safe to run on a thread of its own
// while the host reads a dataset (run_experiment does). No-op on the CPU.
#pragma once

#include "core/device.hpp"

namespace sgnn::training {

void warm_up_device(Device device);

}  // namespace sgnn::training
