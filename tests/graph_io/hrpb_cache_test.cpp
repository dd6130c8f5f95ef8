#include <doctest/doctest.h>

#include "graph_io/hrpb_cache.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/hrpb_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

graph_io::HrpbOptions resolved_options() {
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 64;
  return options;
}

void check_same_hrpb(const Hrpb& got, const Hrpb& expected) {
  CHECK(got.num_blocks == expected.num_blocks);
  CHECK(got.max_block_words == expected.max_block_words);
  CHECK(got.statistics.num_bricks == expected.statistics.num_bricks);
  CHECK(got.schedule.num_virtual_panels == expected.schedule.num_virtual_panels);
  CHECK(got.schedule.waves_planned == expected.schedule.waves_planned);
  CHECK(got.packed_blocks.to_vector<int32_t>() == expected.packed_blocks.to_vector<int32_t>());
  CHECK(got.blocked_row_ptr.to_vector<int32_t>() == expected.blocked_row_ptr.to_vector<int32_t>());
}

}  // namespace

TEST_CASE("HRPB cache: built and stored on a miss, loaded identical on a hit, rebuilt when truncated") {
  const TempDir dir;
  const std::filesystem::path adjacency_file = dir / "adjacency-0123.sgnn";
  const Adjacency base = hrpb_test_graphs()[2].adjacency;

  Adjacency first = base;
  const graph_io::HrpbAttachment miss =
      graph_io::attach_hrpb_cached(first, SpmmFormat::Hrpb, resolved_options(), adjacency_file);
  CHECK_FALSE(miss.cache_hit);
  REQUIRE(first.hrpb != nullptr);
  std::filesystem::path hrpb_file = adjacency_file;
  hrpb_file += ".hrpb";
  REQUIRE(std::filesystem::exists(hrpb_file));

  Adjacency second = base;
  const graph_io::HrpbAttachment hit =
      graph_io::attach_hrpb_cached(second, SpmmFormat::Hrpb, resolved_options(), adjacency_file);
  CHECK(hit.cache_hit);
  REQUIRE(second.hrpb != nullptr);
  check_same_hrpb(second.hrpb->forward, first.hrpb->forward);
  check_same_hrpb(second.hrpb->transpose, first.hrpb->transpose);

  // Other options: another fingerprint, so a rebuild.
  graph_io::HrpbOptions other = resolved_options();
  other.concurrent_blocks = 8;
  Adjacency third = base;
  CHECK_FALSE(graph_io::attach_hrpb_cached(third, SpmmFormat::Hrpb, other, adjacency_file).cache_hit);

  // A truncated file: detected, rebuilt, same layout.
  std::filesystem::resize_file(hrpb_file, std::filesystem::file_size(hrpb_file) / 2);
  Adjacency fourth = base;
  CHECK_FALSE(graph_io::attach_hrpb_cached(fourth, SpmmFormat::Hrpb, other, adjacency_file).cache_hit);
  check_same_hrpb(fourth.hrpb->forward, third.hrpb->forward);
}
