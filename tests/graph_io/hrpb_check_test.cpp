#include <doctest/doctest.h>

#include <bit>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "graph_io/hrpb_builder.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/hrpb_graphs.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

graph_io::HrpbOptions split_options() {
  graph_io::HrpbOptions options;
  options.load_balance = true;
  options.concurrent_blocks = 4;  // few slots: heavy panels get split
  return options;
}

// A copy of `t` (host) with element `i` replaced by `value`.
template <class T>
Tensor with_element(const Tensor& t, int64_t i, T value) {
  std::vector<T> v = t.to_vector<T>();
  v[static_cast<std::size_t>(i)] = value;
  return Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
}

// The word index of block b's first pattern word.
int64_t first_pattern_word(const Hrpb& h, int64_t b) {
  const int64_t begin = h.size_ptr.to_vector<int64_t>().at(static_cast<std::size_t>(b));
  const int32_t bricks = h.packed_blocks.to_vector<int32_t>().at(static_cast<std::size_t>(begin + hrpb::kBrickColumns));
  return begin + hrpb::patterns_offset(bricks);
}

NamedGraph graph_named(const std::string& name) {
  for (NamedGraph& graph : hrpb_test_graphs()) {
    if (graph.name == name) return graph;
  }
  FAIL("no test graph named " << name);
  return {};
}

// Moves one non-zero of `h` within its brick, keeping the pattern's bit
// count, to a cell for which `target(row, col)` holds (row in the matrix,
// col the original column or -1 for padding); false when none exists.
bool move_a_nonzero(Hrpb& h, const std::function<bool(int64_t, int32_t)>& target) {
  const std::vector<int32_t> row_ptr = h.blocked_row_ptr.to_vector<int32_t>();
  const std::vector<int32_t> active = h.active_cols.to_vector<int32_t>();
  const std::vector<int64_t> size_ptr = h.size_ptr.to_vector<int64_t>();
  std::vector<int32_t> words = h.packed_blocks.to_vector<int32_t>();
  for (int64_t panel = 0; panel < h.num_panels; ++panel) {
    for (int32_t b = row_ptr[static_cast<std::size_t>(panel)]; b < row_ptr[static_cast<std::size_t>(panel) + 1]; ++b) {
      int32_t* record = words.data() + size_ptr[static_cast<std::size_t>(b)];
      const int bricks = record[hrpb::kBrickColumns];
      for (int c = 0; c < hrpb::kBrickColumns; ++c) {
        for (int32_t k = record[c]; k < record[c + 1]; ++k) {
          int32_t* pattern_words = record + hrpb::patterns_offset(bricks) + 2 * k;
          uint64_t pattern = hrpb::brick_pattern(pattern_words);
          const int from = std::countr_zero(pattern);  // bricks are never empty
          for (int to = 0; to < 64; ++to) {
            if ((pattern >> to) & 1u) continue;
            const int64_t row = panel * hrpb::kPanelRows + to / hrpb::kBrickCols;
            const int32_t col = active[static_cast<std::size_t>(b) * hrpb::kBlockCols +
                                       static_cast<std::size_t>(c * hrpb::kBrickCols + to % hrpb::kBrickCols)];
            if (!target(row, col)) continue;
            pattern = (pattern & ~(uint64_t{1} << from)) | (uint64_t{1} << to);
            pattern_words[0] = static_cast<int32_t>(static_cast<uint32_t>(pattern));
            pattern_words[1] = static_cast<int32_t>(static_cast<uint32_t>(pattern >> 32));
            h.packed_blocks = Tensor::from_vector(words, {static_cast<int64_t>(words.size())});
            return true;
          }
        }
      }
    }
  }
  return false;
}

struct Tampering {
  std::string what;
  std::function<void(Hrpb&)> change;
  const char* problem;  // part of the reason given
};

}  // namespace

TEST_CASE("hrpb_structure_problem accepts every built layout, forward and transpose, split or not") {
  for (const NamedGraph& graph : hrpb_test_graphs()) {
    CAPTURE(graph.name);
    for (const graph_io::HrpbOptions& options : {graph_io::HrpbOptions{}, split_options()}) {
      const HrpbAdjacency h = graph_io::build_hrpb(graph.adjacency, options);
      CHECK(hrpb_structure_problem(h.forward).empty());
      CHECK(hrpb_structure_problem(h.transpose).empty());
    }
  }
}

TEST_CASE("hrpb_structure_problem names what is wrong in a damaged layout") {
  // Many blocks, and split panels (the hub row).
  const NamedGraph graph = graph_named("a hub row of 3000 columns");
  const Hrpb good = graph_io::build_hrpb(graph.adjacency.csr, graph.adjacency.values, split_options());
  REQUIRE(good.num_blocks > 2);
  REQUIRE(good.schedule.num_split_panels > 0);
  const std::vector<Tampering> tamperings{
      {"panel count", [](Hrpb& h) { h.num_panels += 1; }, "row panels for"},
      {"max_block_words out of range", [](Hrpb& h) { h.max_block_words = hrpb::kMaxBlockWords + 1; },
       "max_block_words"},
      {"max_block_words not the largest block", [](Hrpb& h) { h.max_block_words -= 2; }, "the largest block has"},
      {"a short active_cols", [](Hrpb& h) { h.active_cols = h.active_cols.narrow_rows(0, 16).clone(); },
       "wrong type or length"},
      {"blocked_row_ptr decreasing",
       [](Hrpb& h) {
         h.blocked_row_ptr = with_element<int32_t>(h.blocked_row_ptr, 1, static_cast<int32_t>(h.num_blocks + 1));
       },
       "decreases at panel"},
      {"an active column past the matrix",
       [](Hrpb& h) { h.active_cols = with_element<int32_t>(h.active_cols, 0, static_cast<int32_t>(h.num_cols)); },
       "outside [-1,"},
      {"an active column below -1", [](Hrpb& h) { h.active_cols = with_element<int32_t>(h.active_cols, 0, -7); },
       "outside [-1,"},
      {"size_ptr past the packed blocks",
       [](Hrpb& h) { h.size_ptr = with_element<int64_t>(h.size_ptr, h.num_blocks, h.packed_blocks.numel() + 2); },
       "does not span"},
      {"two bricks in one brick column",
       [](Hrpb& h) {
         const int64_t begin = h.size_ptr.to_vector<int64_t>().at(0);
         h.packed_blocks = with_element<int32_t>(h.packed_blocks, begin + 1, 2);
       },
       "holds 2 bricks"},
      // Found by fuzz_cache_file: the step between two colPtr words overflowed int32 (UBSan).
      {"a colPtr word at the bottom of int32",
       [](Hrpb& h) {
         const int64_t begin = h.size_ptr.to_vector<int64_t>().at(0);
         h.packed_blocks = with_element<int32_t>(h.packed_blocks, begin + 1, 1);
         h.packed_blocks = with_element<int32_t>(h.packed_blocks, begin + 2, std::numeric_limits<int32_t>::min());
       },
       "holds -2147483649 bricks"},
      {"a pattern bit without a value",
       [](Hrpb& h) {
         const int64_t word = first_pattern_word(h, 0);
         const int32_t low = h.packed_blocks.to_vector<int32_t>()[static_cast<std::size_t>(word)];
         // Set the lowest clear bit of the low pattern word.
         h.packed_blocks = with_element<int32_t>(h.packed_blocks, word, low | (low + 1));
       },
       "its header describes"},
      {"an empty brick",
       [](Hrpb& h) {
         const int64_t word = first_pattern_word(h, 0);
         h.packed_blocks = with_element<int32_t>(with_element<int32_t>(h.packed_blocks, word, 0), word + 1, 0);
       },
       "is empty"},
      {"a non-zero count that does not match", [](Hrpb& h) { h.nnz += 1; }, "non-zeros, the HRPB says"},
      {"a row count past int32", [](Hrpb& h) { h.num_rows = int64_t{1} << 40; }, "sizes out of range"},
      {"a block count near int64's end", [](Hrpb& h) { h.num_blocks = INT64_MAX; }, "sizes out of range"},
      {"a virtual panel of no panel",
       [](Hrpb& h) {
         h.schedule.virtual_panel =
             with_element<int32_t>(h.schedule.virtual_panel, 0, static_cast<int32_t>(h.num_panels));
       },
       "panels must come in order"},
      {"a virtual panel of a negative panel",
       [](Hrpb& h) { h.schedule.virtual_panel = with_element<int32_t>(h.schedule.virtual_panel, 0, -1); },
       "panels must come in order"},
      {"virtual block ranges past the blocks",
       [](Hrpb& h) {
         h.schedule.virtual_block_ptr = with_element<int32_t>(
             h.schedule.virtual_block_ptr, h.schedule.num_virtual_panels, static_cast<int32_t>(h.num_blocks + 1));
       },
       "do not cover the blocks"},
      {"a virtual panel with blocks of the next panel",
       [](Hrpb& h) {
         // Move the boundary between the first two virtual panels of different panels.
         const std::vector<int32_t> panel = h.schedule.virtual_panel.to_vector<int32_t>();
         const std::vector<int32_t> ptr = h.schedule.virtual_block_ptr.to_vector<int32_t>();
         std::size_t v = 0;
         while (panel[v + 1] == panel[v] || ptr[v + 2] == ptr[v + 1]) ++v;
         h.schedule.virtual_block_ptr = with_element<int32_t>(h.schedule.virtual_block_ptr,
                                                              static_cast<int64_t>(v + 1), ptr[v + 1] + 1);
       },
       "outside its panel"},
      {"a slot past the slots",
       [](Hrpb& h) {
         h.schedule.virtual_slot = with_element<int32_t>(h.schedule.virtual_slot, 0,
                                                         static_cast<int32_t>(h.schedule.num_slots));
       },
       "has slot"},
      {"a split panel out of range",
       [](Hrpb& h) { h.schedule.split_panel = with_element<int32_t>(h.schedule.split_panel, 0, -3); },
       "out of range"},
      {"a schedule tensor missing", [](Hrpb& h) { h.schedule.virtual_slot = Tensor(); }, "wrong type or length"},
  };
  for (const Tampering& tampering : tamperings) {
    CAPTURE(tampering.what);
    Hrpb bad = good;
    tampering.change(bad);
    const std::string problem = hrpb_structure_problem(bad);
    CHECK_MESSAGE(problem.find(tampering.problem) != std::string::npos, problem);
  }

  // A non-zero moved within its brick, the pattern's bit count kept: onto a
  // padding column, or past the last row. The R-MAT graph (1000 rows: the
  // last panel has 8) has bricks that straddle its panels' last active
  // column; the hub row's panels all have multiples of 4 active columns.
  const NamedGraph rmat = graph_named("power-law R-MAT 1000 nodes (GCN-normalised)");
  const Hrpb rmat_good = graph_io::build_hrpb(rmat.adjacency.csr, rmat.adjacency.values, {});
  REQUIRE(rmat_good.num_rows % hrpb::kPanelRows != 0);
  const int64_t rows = rmat_good.num_rows;
  for (const auto& [what, target] : std::vector<std::pair<std::string, std::function<bool(int64_t, int32_t)>>>{
           {"a non-zero in a padding column", [](int64_t, int32_t col) { return col < 0; }},
           {"a non-zero past the last row", [rows](int64_t row, int32_t col) { return col >= 0 && row >= rows; }}}) {
    CAPTURE(what);
    Hrpb bad = rmat_good;
    REQUIRE(move_a_nonzero(bad, target));
    const std::string problem = hrpb_structure_problem(bad);
    CHECK_MESSAGE(problem.find("in a padding column or past the last row") != std::string::npos, problem);
  }
}

TEST_CASE("HRPB cache: a layout with right checksums but an inconsistent structure is refused and rebuilt") {
  const TempDir dir;
  const std::filesystem::path adjacency_file = dir / "adjacency-4567.sgnn";
  std::filesystem::path hrpb_file = adjacency_file;
  hrpb_file += ".hrpb";
  const Adjacency base = hrpb_test_graphs()[2].adjacency;
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 64;
  const uint64_t fingerprint = graph_io::hrpb_cache_fingerprint(adjacency_file, options);
  const HrpbAdjacency good = graph_io::build_hrpb(base, options);

  // Stored through the writer, so every checksum is right.
  HrpbAdjacency bad = good;
  bad.forward.active_cols =
      with_element<int32_t>(bad.forward.active_cols, 3, static_cast<int32_t>(base.num_cols() + 5));
  graph_io::store_hrpb_cache(hrpb_file, fingerprint, bad);
  std::string why;
  CHECK_FALSE(graph_io::load_hrpb_cache(hrpb_file, fingerprint, why));
  CHECK_MESSAGE(why.find("forward layout is inconsistent: active column") != std::string::npos, why);

  // Layouts of another matrix (consistent in themselves).
  const HrpbAdjacency other = graph_io::build_hrpb(hrpb_test_graphs()[0].adjacency, options);
  graph_io::store_hrpb_cache(hrpb_file, fingerprint, other);
  Adjacency attached = base;
  const graph_io::HrpbAttachment attachment =
      graph_io::attach_hrpb_cached(attached, SpmmFormat::Hrpb, options, adjacency_file);
  CHECK_FALSE(attachment.cache_hit);
  REQUIRE(attached.hrpb != nullptr);
  CHECK(attached.hrpb->forward.packed_blocks.to_vector<int32_t>() == good.forward.packed_blocks.to_vector<int32_t>());
  CHECK(attached.hrpb->forward.num_rows == base.num_rows());

  // The rebuilt file replaced the bad one: the next attach hits.
  Adjacency again = base;
  CHECK(graph_io::attach_hrpb_cached(again, SpmmFormat::Hrpb, options, adjacency_file).cache_hit);
}
