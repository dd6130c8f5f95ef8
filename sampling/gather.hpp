// gather_rows: out[i] = rows[ids[i]], the batch's input features (and its
// labels) from wherever the whole table lives: device memory, or host memory
// read by the GPU over unified addressing (pinned, or a page-locked mapping
// of the processed dataset file; sampling/host_access.hpp), with an optional
// device cache of some rows.
//
//   source  the table: `rows` readable by the context's device, `num_rows` x
//           `row_elements` of float32, bfloat16 or int32
//   ids     int32 [n] in [0, num_rows), on the context's device
//   out     [n, row_elements] (or [n] for a 1-wide table) on the context's
//           device; float32 or bfloat16 for a float table (converted on the
//           way: round to nearest even, or exact widening), int32 for int32
//   cache   optional: slot_of_row int32 [num_rows] (-1: not cached) and the
//           cached rows [slots, row_elements] of the source's dtype, both
//           device memory; a cached row is read from there instead
//
// CUDA: a group of lanes per row (a warp for rows of 512 bytes and more)
// reads it with coalesced 16-byte loads when its bytes allow, so a host
// table moves at the bus's rate rather than a transaction per element. A
// table in host memory (`in_host_memory`) is read in ascending id order
// (the ids sorted with their positions first, each row written to its
// position): a batch's rows then come page after page, and their
// addresses translate far faster than rows in random order
// (docs/sampling.md gives the figures).
// ids out of range are not checked on a GPU (InvalidArgument on the CPU).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "sampling/work_context.hpp"

namespace sgnn::sampling {

struct RowSource {
  const void* rows = nullptr;
  DType dtype = DType::Float32;
  int64_t num_rows = 0;
  int64_t row_elements = 0;
  bool in_host_memory = false;  // read over unified addressing (see above)
};

struct RowCache {
  const int32_t* slot_of_row = nullptr;  // null: no cache
  const void* rows = nullptr;
};

void gather_rows(const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache = {});

}  // namespace sgnn::sampling
