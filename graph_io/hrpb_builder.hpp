// build_hrpb: the HRPB layout (core/hrpb.hpp) of a CSR matrix and its values,
// built where the CSR lives: on a CUDA device with Thrust's CUDA policy, on
// the host with its OpenMP policy. Both run the same templated steps
// (graph_io/hrpb_builder.inl) and give identical buffers.
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "core/hrpb.hpp"

namespace sgnn::graph_io {

struct HrpbOptions {
  bool load_balance = true;    // split heavy row panels along K when it shortens the run (§5)
  bool deterministic = false;  // split panels merged in a fixed order instead of with atomics
  // Thread blocks the GPU runs at once (SMs × resident blocks per SM), for the
  // schedule. 0: SMs × 8 of the CSR's device, or 132 × 8 (an H100) on the host;
  // ops::spmm_hrpb_concurrent_blocks gives the kernel's exact occupancy.
  int64_t concurrent_blocks = 0;
};

// values: undefined (pattern, weight 1) or float32 [nnz] on the CSR's device,
// in CSR order. Throws InvalidArgument on a bad shape, dtype or device, or
// more than 2^31 − 1 non-zeros.
Hrpb build_hrpb(const Csr& csr, const Tensor& values, const HrpbOptions& options);

// The forward HRPB from (csr, values) and the transpose HRPB from
// (transpose, transpose_values); the pattern (weight 1) when values is undefined.
HrpbAdjacency build_hrpb(const Adjacency& adjacency, const HrpbOptions& options);

// Sets adjacency.spmm_format and, for Hrpb or Auto, builds adjacency.hrpb on
// the adjacency's device when it is not there yet (once per graph; every
// layer and epoch reuses it). Returns the milliseconds the build took (0
// when nothing was built). InvalidArgument when values are per-head.
double attach_hrpb(Adjacency& adjacency, SpmmFormat format, const HrpbOptions& options = {});

}  // namespace sgnn::graph_io
