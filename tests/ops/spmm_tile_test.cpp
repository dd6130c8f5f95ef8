// The CSR SpMM tiles' names, kernels and candidates (ops/spmm_tile.hpp): host
// code, so the CPU tier checks what the choice may time and what a recorded
// name may stand for.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ops/spmm_tile.hpp"

using namespace sgnn;

namespace {

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> names_of(const std::vector<ops::SpmmTile>& tiles) {
  std::vector<std::string> names;
  for (const ops::SpmmTile& tile : tiles) names.push_back(ops::spmm_tile_name(tile));
  return names;
}

}  // namespace

TEST_CASE("spmm tiles: narrow light tiles come in 40 and 64 registers, the others in 32") {
  const std::vector<std::string> at16 = ops::spmm_tile_names(16, true);
  const std::vector<std::string> at32 = ops::spmm_tile_names(32, true);
  const std::vector<std::string> at64 = ops::spmm_tile_names(64, true);
  for (const char* name : {"v4s4r1-light40", "v4s4r1-light64", "v4s4r1-light40-rows"}) CHECK(has(at16, name));
  for (const char* name : {"v4s8r1-light40", "v4s8r1-light64", "v4s8r1-light64-rows"}) CHECK(has(at32, name));
  CHECK_FALSE(has(at32, "v4s8r1-light"));
  // Each segment-major light tile also with a subwarp for each item; slice-major ones launch so anyway.
  for (const char* name : {"v4s4r1-light40-items", "v4s4r1-light64-items-rows"}) CHECK(has(at16, name));
  for (const char* name : {"v4s8r1-light40-items", "v4s8r1-light64-items-rows"}) CHECK(has(at32, name));
  CHECK(has(at64, "v4s16r1-light-items"));
  CHECK_FALSE(has(at64, "v4s16r1-items"));  // heavy tiles keep their waves
  CHECK(has(at64, "v4s16r1-light"));
  CHECK_FALSE(has(at64, "v4s16r1-light40"));
  CHECK_FALSE(has(at64, "v4s16r1-light64"));
  // RoDe's shape at width 128: 8 lanes of two accesses in slices, heavy and under 64 registers.
  const std::vector<std::string> at128 = ops::spmm_tile_names(128, true);
  for (const char* name : {"v4s8r2-slices", "v4s8r2-light64-slices", "v4s8r2-light64-slices-rows"}) {
    CHECK(has(at128, name));
  }
  CHECK_FALSE(has(at128, "v4s8r2-light40-slices"));
  for (const std::string& name : at128) {
    CAPTURE(name);
    CHECK_FALSE((name.find("-items") != std::string::npos && name.find("-slices") != std::string::npos));
  }
  CHECK_FALSE(has(at64, "v4s8r2-slices"));  // one slice: the whole row
  // bfloat16 has no light tiles.
  for (const std::string& name : ops::spmm_tile_names(32, true, DType::BFloat16)) {
    CHECK(name.find("-light") == std::string::npos);
  }
}

TEST_CASE("spmm tiles: every name parses back to its tile, and no other spelling does") {
  for (const int64_t features : {8, 16, 32, 64, 128, 256}) {
    for (const std::string& name : ops::spmm_tile_names(features, true)) {
      const std::optional<ops::SpmmTile> tile = ops::parse_spmm_tile(name, 1, features, true, DType::Float32);
      CAPTURE(name);
      REQUIRE(tile.has_value());
      CHECK(ops::spmm_tile_name(*tile) == name);
    }
  }
  for (const char* name : {"v4s8r1-light", "v4s8r1-light32", "v4s8r1-light48", "v4s16r1-light40", "v4s8r1-light40x",
                           "v4s8r1-light-40", "v4s8r1-light99999999999", "v4s8r140", "v4s16r1-light32",
                           "v4s8r1-items", "v4s8r1-items-light40", "v4s8r1-light40-items-items",
                           "v4s16r1-light-items-slices"}) {
    CAPTURE(name);
    CHECK_FALSE(ops::parse_spmm_tile(name, 1, 32, true, DType::Float32).has_value());
  }
}

TEST_CASE("spmm tiles: the choice times narrow tiles heavy and light, the rule keeps them heavy") {
  const std::vector<std::string> at32 =
      names_of(ops::candidate_spmm_tiles(1, 32, true, DType::Float32, /*light_runs=*/true));
  CHECK(at32.front() == "v4s8r1");
  for (const char* name : {"v4s8r1", "v4s8r1-light40", "v4s8r1-light64", "v4s8r1-light40-items", "v4s8r1-light64-items"}) {
    CHECK(has(at32, name));
  }
  CHECK(ops::spmm_tile_name(ops::rule_spmm_tile(32, true, DType::Float32, true)) == "v4s8r1");
  // Where the graph does not fit 32-bit counting, no light tile is timed.
  for (const std::string& name : names_of(ops::candidate_spmm_tiles(1, 32, true, DType::Float32, false))) {
    CHECK(name.find("-light") == std::string::npos);
  }
  // From 16 lanes the 32-register twin replaces its heavy tile, and the rule takes it.
  const std::vector<std::string> at64 =
      names_of(ops::candidate_spmm_tiles(1, 64, true, DType::Float32, /*light_runs=*/true));
  CHECK(at64.front() == "v4s16r1-light");
  CHECK_FALSE(has(at64, "v4s16r1"));
  CHECK(has(at64, "v4s16r1-light-items"));
  CHECK(ops::spmm_tile_name(ops::rule_spmm_tile(64, true, DType::Float32, true)) == "v4s16r1-light");
  const std::vector<std::string> at128 =
      names_of(ops::candidate_spmm_tiles(1, 128, true, DType::Float32, /*light_runs=*/true));
  CHECK(has(at128, "v4s8r2-slices"));
  CHECK(has(at128, "v4s8r2-light64-slices"));
}
