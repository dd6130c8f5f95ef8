#include <doctest/doctest.h>

#include "graph_io/graph.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/random_graphs.hpp"
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

TEST_CASE("HRPB cache: a symmetric matrix's one layout is stored once and loads as one layout for both directions") {
  const TempDir dir;
  const std::filesystem::path adjacency_file = dir / "adjacency-sym.sgnn";
  std::filesystem::path hrpb_file = adjacency_file;
  hrpb_file += ".hrpb";
  graph_io::PrepareOptions prepare = graph_io::gcn_graph_options().prepare;  // symmetrised, D^-1/2 (A+I) D^-1/2
  prepare.symmetric_scale = true;
  const Adjacency base = graph_io::prepare_adjacency(sgnn::testing::random_edges(500, 4000, 45, false), prepare);

  Adjacency first = base;
  REQUIRE_FALSE(graph_io::attach_hrpb_cached(first, SpmmFormat::Hrpb, resolved_options(), adjacency_file).cache_hit);
  REQUIRE(first.hrpb->transpose.packed_blocks.shares_storage_with(first.hrpb->forward.packed_blocks));
  const auto shared_size = std::filesystem::file_size(hrpb_file);

  Adjacency second = base;
  REQUIRE(graph_io::attach_hrpb_cached(second, SpmmFormat::Hrpb, resolved_options(), adjacency_file).cache_hit);
  check_same_hrpb(second.hrpb->forward, first.hrpb->forward);
  CHECK(second.hrpb->transpose.packed_blocks.shares_storage_with(second.hrpb->forward.packed_blocks));
  CHECK(second.hrpb->transpose.derived == second.hrpb->forward.derived);  // derived device data built once too

  // A file of the earlier form (both directions stored) still loads, as two layouts.
  const uint64_t fingerprint = graph_io::hrpb_cache_fingerprint(adjacency_file, resolved_options());
  HrpbAdjacency unshared{first.hrpb->forward, first.hrpb->forward};
  unshared.transpose.packed_blocks = first.hrpb->forward.packed_blocks.clone();
  graph_io::store_hrpb_cache(hrpb_file, fingerprint, unshared);
  CHECK(std::filesystem::file_size(hrpb_file) > shared_size + first.hrpb->forward.packed_blocks.nbytes() / 2);
  std::string why;
  const std::optional<HrpbAdjacency> both = graph_io::load_hrpb_cache(hrpb_file, fingerprint, why);
  REQUIRE(both.has_value());
  check_same_hrpb(both->transpose, first.hrpb->forward);
  CHECK_FALSE(both->transpose.packed_blocks.shares_storage_with(both->forward.packed_blocks));

  // The marker on a matrix that is not square, or with another value: refused with the reason, then rebuilt.
  graph_io::SectionFile damaged = graph_io::read_section_file(hrpb_file, "hrpb-cache", 2);
  std::erase_if(damaged.sections, [](const auto& section) { return section.first.starts_with("transpose."); });
  for (auto it = damaged.metadata.begin(); it != damaged.metadata.end();) {
    it = it->first.starts_with("transpose.") ? damaged.metadata.erase(it) : std::next(it);
  }
  damaged.metadata["transpose"] = "itself";
  graph_io::write_section_file(hrpb_file, damaged);
  CHECK_FALSE(graph_io::load_hrpb_cache(hrpb_file, fingerprint, why).has_value());
  CHECK(why.find("'itself'") != std::string::npos);
  Adjacency third = base;
  CHECK_FALSE(graph_io::attach_hrpb_cached(third, SpmmFormat::Hrpb, resolved_options(), adjacency_file).cache_hit);
  check_same_hrpb(third.hrpb->forward, first.hrpb->forward);
}
