#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/sparse_segments.hpp"
#include "tests/support/sparse_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Every entry is covered exactly once, segments stay inside their row, are at
// most segment_length long, split rows come first with their segments in
// entry order, and the split bookkeeping names exactly the rows over length.
void check_segments(const ops::SegmentPlan& plan, const std::vector<int64_t>& lengths) {
  const int64_t length = plan.segment_length;
  std::vector<int64_t> row_begin(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) row_begin[i + 1] = row_begin[i] + lengths[i];
  REQUIRE(plan.row.size() == plan.begin.size());
  std::vector<int> covered(static_cast<std::size_t>(row_begin.back()), 0);
  std::vector<int> segments_of_row(lengths.size(), 0);
  for (std::size_t s = 0; s < plan.row.size(); ++s) {
    const auto row = static_cast<std::size_t>(plan.row[s]);
    REQUIRE(row < lengths.size());
    const int64_t end = std::min(plan.begin[s] + length, row_begin[row + 1]);
    CHECK(plan.begin[s] >= row_begin[row]);
    CHECK((plan.begin[s] < end || lengths[row] == 0));
    CHECK(end - plan.begin[s] <= length);
    for (int64_t e = plan.begin[s]; e < end; ++e) ++covered[static_cast<std::size_t>(e)];
    ++segments_of_row[row];
    const bool split_row = lengths[row] > length;
    CHECK(split_row == (static_cast<int64_t>(s) < plan.split_segments));
  }
  for (int count : covered) CHECK(count == 1);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    CHECK(segments_of_row[i] == (lengths[i] <= length ? 1 : (lengths[i] + length - 1) / length));
  }
  REQUIRE(plan.split_offsets.size() == plan.split_rows.size() + 1);
  CHECK(plan.split_offsets.front() == 0);
  CHECK(plan.split_offsets.back() == plan.split_segments);
  for (std::size_t k = 0; k < plan.split_rows.size(); ++k) {
    const auto row = static_cast<std::size_t>(plan.split_rows[k]);
    CHECK(lengths[row] > length);
    int64_t expected_begin = row_begin[row];
    for (int64_t s = plan.split_offsets[k]; s < plan.split_offsets[k + 1]; ++s) {  // in entry order
      CHECK(plan.row[static_cast<std::size_t>(s)] == plan.split_rows[k]);
      CHECK(plan.begin[static_cast<std::size_t>(s)] == expected_begin);
      expected_begin += length;
    }
    CHECK(expected_begin >= row_begin[row + 1]);
  }
}

}  // namespace

TEST_CASE("segment plan: every entry once, in order, pieces of at most segment_length") {
  const std::vector<int64_t> lengths{0, 3, 8, 9, 0, 17, 8, 1, 40};
  for (int64_t length : {4, 8, 16, 128}) {
    CAPTURE(length);
    check_segments(ops::plan_segments(lengths, length), lengths);
  }
  const ops::SegmentPlan plan = ops::plan_segments(lengths, 8);
  CHECK(plan.split_rows == std::vector<int32_t>{3, 5, 8});
  CHECK(plan.split_offsets == std::vector<int64_t>{0, 2, 5, 10});
  // Unsplit rows after the split segments, longest first, ties by row id.
  CHECK(std::vector<int32_t>(plan.row.begin() + 10, plan.row.end()) == std::vector<int32_t>{2, 6, 1, 7, 0, 4});
  CHECK(ops::plan_segments({}, 128).row.empty());
}

TEST_CASE("segment plan: bad segment lengths are refused, the length follows the mean row length and the size") {
  CHECK_THROWS_AS(ops::plan_segments({1, 2}, 0), InvalidArgument);
  CHECK_THROWS_AS(ops::plan_segments({1, 2}, 6), InvalidArgument);
  const int64_t large = int64_t{1} << 40;  // big enough for any length
  CHECK(ops::choose_segment_length(1.0, large) == 128);
  CHECK(ops::choose_segment_length(100.0, large) == 256);
  CHECK(ops::choose_segment_length(466.0, large) == 1024);
  CHECK(ops::choose_segment_length(1e6, large) == 1024);
  // Small graphs: halved until kParallelSegments segments fit, never below the minimum.
  CHECK(ops::choose_segment_length(1.0, ops::kParallelSegments * 128) == 128);
  CHECK(ops::choose_segment_length(1.0, ops::kParallelSegments * 128 - 1) == 64);
  CHECK(ops::choose_segment_length(466.0, ops::kParallelSegments * 256) == 256);
  CHECK(ops::choose_segment_length(4.9, 13264) == ops::kMinimumSegmentLength);  // Cora
  CHECK(ops::choose_segment_length(0.0, 0) == ops::kMinimumSegmentLength);
}

TEST_CASE("sparse plan carries the segments of its CSR") {
  const Adjacency hub = hub_graph(3000, 2900, 17);
  const auto plan = ops::sparse_plan(hub.csr);
  const std::vector<int64_t> lengths = hub.csr.row_lengths();
  CHECK(plan->segment_length == ops::choose_segment_length(plan->mean_row_length, hub.nnz()));
  CHECK(plan->num_split_rows == 1);
  CHECK(plan->split_rows.to_vector<int32_t>() == std::vector<int32_t>{17});
  CHECK(plan->split_segments == (2900 + plan->segment_length - 1) / plan->segment_length);
  CHECK(plan->segments == plan->split_segments + 2999);
  ops::SegmentPlan copy;
  copy.segment_length = plan->segment_length;
  copy.row = plan->segment_row.to_vector<int32_t>();
  copy.begin = plan->segment_begin.to_vector<int64_t>();
  copy.split_segments = plan->split_segments;
  copy.split_rows = plan->split_rows.to_vector<int32_t>();
  copy.split_offsets = plan->split_offsets.to_vector<int64_t>();
  check_segments(copy, lengths);
}
