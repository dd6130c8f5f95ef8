// Work segments of a CSR for the load-balanced sparse kernels: every row is
// cut into pieces of at most `segment_length` entries, so a power-law hub row
// (tens of thousands of entries) becomes many independent work items instead
// of one serial, latency-bound tail. Rows of at most segment_length entries
// (empty rows included: SpMM must still write their zero output row) stay one
// segment. Computed on the host once per graph (ops/sparse_plan.cpp).
//
// Segment s covers entries [begin[s], min(begin[s] + segment_length, end of
// row[s])). Order: the segments of split rows first, grouped by row, in entry
// order (so a split row's partial sums can be reduced in a fixed order), then
// the unsplit rows by decreasing length (heavy first).
#pragma once

#include <cstdint>
#include <vector>

namespace sgnn::ops {

struct SegmentPlan {
  int64_t segment_length = 0;
  std::vector<int32_t> row;    // [segments] the row of each segment
  std::vector<int64_t> begin;  // [segments] its first entry (absolute CSR position)
  // Segments [0, split_segments) belong to split rows; split row k owns
  // segments [split_offsets[k], split_offsets[k + 1]).
  int64_t split_segments = 0;
  std::vector<int32_t> split_rows;     // [rows that were split]
  std::vector<int64_t> split_offsets;  // [split rows + 1], starts at 0
};

// Work items a small graph is cut into at least (see choose_segment_length).
inline constexpr int64_t kParallelSegments = 4096;
inline constexpr int64_t kMinimumSegmentLength = 16;

// The segment length for a graph of `nnz` entries and this mean row length:
// a power of two, about twice the mean within [128, 1024], so typical rows
// stay whole (no atomics) and only the heavy tail is cut; but on a graph too
// small to give kParallelSegments segments of that length, halved (down to
// kMinimumSegmentLength) until it does. Otherwise one hub segment is the
// whole kernel's critical path: on a Cora-sized graph (13K entries) a
// 128-entry segment made the SpMM kernel take 29 µs against cuSPARSE's 13.
int64_t choose_segment_length(double mean_row_length, int64_t nnz);

// Segments of the CSR whose rows have these lengths. segment_length ≥ 4 and a
// multiple of 4 (the kernels' 128-bit index loads align to 4 entries), else
// InvalidArgument.
SegmentPlan plan_segments(const std::vector<int64_t>& row_lengths, int64_t segment_length);

}  // namespace sgnn::ops
