#include "ops/sparse_segments.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace sgnn::ops {

int64_t choose_segment_length(double mean_row_length, int64_t nnz) {
  int64_t length = 128;
  while (length < 1024 && static_cast<double>(length) < 2.0 * mean_row_length) length *= 2;
  while (length > kMinimumSegmentLength && nnz < kParallelSegments * length) length /= 2;
  return length;
}

SegmentPlan plan_segments(const std::vector<int64_t>& row_lengths, int64_t segment_length) {
  SGNN_CHECK(segment_length >= 4 && segment_length % 4 == 0, "plan_segments: segment_length ", segment_length,
             " must be a positive multiple of 4");
  SegmentPlan plan;
  plan.segment_length = segment_length;
  const std::size_t rows = row_lengths.size();
  std::vector<int64_t> row_begin(rows + 1, 0);
  for (std::size_t i = 0; i < rows; ++i) row_begin[i + 1] = row_begin[i] + row_lengths[i];

  // Split rows first, in row order, each as consecutive segments.
  plan.split_offsets.push_back(0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (row_lengths[i] <= segment_length) continue;
    plan.split_rows.push_back(static_cast<int32_t>(i));
    for (int64_t start = row_begin[i]; start < row_begin[i + 1]; start += segment_length) {
      plan.row.push_back(static_cast<int32_t>(i));
      plan.begin.push_back(start);
    }
    plan.split_offsets.push_back(static_cast<int64_t>(plan.row.size()));
  }
  plan.split_segments = static_cast<int64_t>(plan.row.size());

  // Then every other row whole, longest first (ties by row id).
  std::vector<int32_t> whole;
  for (std::size_t i = 0; i < rows; ++i) {
    if (row_lengths[i] <= segment_length) whole.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(whole.begin(), whole.end(), [&](int32_t a, int32_t b) {
    return row_lengths[static_cast<std::size_t>(a)] > row_lengths[static_cast<std::size_t>(b)];
  });
  for (int32_t i : whole) {
    plan.row.push_back(i);
    plan.begin.push_back(row_begin[static_cast<std::size_t>(i)]);
  }
  return plan;
}

}  // namespace sgnn::ops
