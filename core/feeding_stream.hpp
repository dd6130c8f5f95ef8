// Streams for work that feeds the library's stream while it computes
// (mini-batch sampling and gathers; include only under SGNN_WITH_CUDA).
#pragma once

#include "core/cuda_runtime.hpp"

namespace sgnn::cuda {

// A new non-blocking stream on the current device at the highest priority:
// the GPU dispatches its kernels' blocks before those waiting on the
// library's stream (the default, lowest priority), so a batch's sampling
// and gathers are not queued behind a training step's kernels. The caller
// destroys it (cudaStreamDestroy).
cudaStream_t create_feeding_stream();

}  // namespace sgnn::cuda
