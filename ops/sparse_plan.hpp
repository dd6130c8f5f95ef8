// SparsePlan: what the CUDA sparse kernels need to know about a CSR beyond
// its arrays, computed once per graph and cached (DESIGN.md: "per-graph launch
// plans are computed once and reused every call").
//
//   row_order        int32 [num_rows] on the CSR's device: rows by decreasing
//                    length (Sputnik's row swizzle); csr.row_order when the CSR
//                    has one, else computed here once
//   mean_row_length  nnz / num_rows, picks the subwarp width of row-wise kernels
//   max_row_length   the longest row
//   segments         the load-balanced work items (ops/sparse_segments.hpp):
//                    segment_row int32 [S] and segment_begin int64 [S] on the
//                    CSR's device; split_rows int32 [R] and split_offsets
//                    int64 [R + 1] (segments of each split row), R may be 0
//   mean_segment_length  nnz / segments: entries a segment's worker walks per
//                    x row, picks the SDDMM kernel (ops/sddmm_path.hpp)
//   choices          the kernels timed as fastest on this graph (ops/kernel_choices.hpp)
//   entry_row        int32 [nnz] on the CSR's device: the row of every entry,
//                    only for graphs of at most kEntryRowsMaxEntries entries
//                    (undefined otherwise): on those, latency bounds the
//                    kernels and one thread per entry pays (the Edges SDDMM);
//                    on large ones the 4 bytes an entry would be wasted
//   all_entry_rows   the same for a graph of any size, made on the first
//                    request (ops::edge_destinations) and kept with the plan
//
// sparse_plan(csr) looks the plan up by csr.indptr's storage. The cache keeps
// the indptr handle alive, so a freed graph's address can never be mistaken
// for a new one; it holds the kPlanCacheSize most recently used graphs, and
// more while an ops::SparsePlanReservation (ops/sparse_plan_reservation.hpp)
// asks for room. Thread safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "core/csr.hpp"
#include "ops/kernel_choice_table.hpp"

namespace sgnn::ops {

// A tensor made on its first request and then kept (thread safe).
struct LazyTensor {
  std::mutex mutex;
  Tensor tensor;
};

struct SparsePlan {
  Tensor indptr;  // the key, held so its address stays unique while cached
  Tensor row_order;
  int64_t num_rows = 0;
  int64_t nnz = 0;
  int64_t max_row_length = 0;
  double mean_row_length = 0.0;
  // Work segments of at most segment_length entries (split rows first).
  int64_t segment_length = 0;
  int64_t segments = 0;
  int64_t split_segments = 0;  // segments [0, split_segments) belong to split rows
  int64_t num_split_rows = 0;
  double mean_segment_length = 0.0;
  Tensor segment_row;
  Tensor segment_begin;
  Tensor split_rows;
  Tensor split_offsets;
  Tensor entry_row;  // undefined when nnz > kEntryRowsMaxEntries
  std::shared_ptr<LazyTensor> all_entry_rows = std::make_shared<LazyTensor>();
  std::shared_ptr<KernelChoiceTable> choices = std::make_shared<KernelChoiceTable>();
};

inline constexpr std::size_t kPlanCacheSize = 16;
inline constexpr int64_t kEntryRowsMaxEntries = int64_t{1} << 18;

std::shared_ptr<const SparsePlan> sparse_plan(const Csr& csr);
// Caches a plan computed elsewhere (the neighbour sampler builds its blocks'
// plans on the GPU, sampling/cuda/block_plans.cu, so a fresh block never
// reads its CSR back to the host), keyed by plan->indptr as sparse_plan(csr)
// looks it up; it replaces a cached plan of the same key. The caller
// guarantees that the plan is the one build_plan would compute.
void register_sparse_plan(std::shared_ptr<const SparsePlan> plan);
// Number of plans computed so far (cache misses), for tests.
int64_t sparse_plans_built();

}  // namespace sgnn::ops
