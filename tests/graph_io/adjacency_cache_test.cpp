// The adjacency cache (format 3: the pattern, values only when they cannot be
// derived, and a host adjacency's derived arrays, which CPU loads map): a
// cached load equals prepare_adjacency bit for bit for every preparation,
// mapped or derived, old and damaged files are rebuilt, and files whose
// checksums are right but whose sections do not describe a valid pattern (or
// its derived arrays) are refused.
#include <doctest/doctest.h>

#include <functional>
#include <numeric>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::check_same_adjacency;
using sgnn::testing::TempDir;

namespace {

Dataset rmat_dataset(int64_t n, int64_t e, uint64_t seed, bool weighted) {
  Dataset d;
  d.edges = generate_rmat({n, e, 0.57, 0.19, 0.19, seed});
  if (weighted) d.edges.weight = sgnn::testing::random_tensor({e}, seed + 1, 0.25, 2.0);
  return d;
}

struct Preparation {
  const char* name;
  GraphOptions options;
};

std::vector<Preparation> preparations() {
  std::vector<Preparation> all{{"gcn", gcn_graph_options()}, {"gat", gat_graph_options()}};
  GraphOptions row = gcn_graph_options();
  row.prepare.normalization = Normalization::Row;
  all.push_back({"row", row});
  GraphOptions plain;  // directed, duplicates merged, loops kept, no normalisation
  all.push_back({"plain", plain});
  GraphOptions drop = gat_graph_options();
  drop.prepare.duplicates = Duplicates::Drop;
  drop.prepare.self_loops = SelfLoops::Remove;
  all.push_back({"drop-no-loops", drop});
  GraphOptions rcm = gcn_graph_options();
  rcm.reordering = Reordering::Rcm;
  all.push_back({"gcn-rcm", rcm});
  GraphOptions degree = gat_graph_options();
  degree.reordering = Reordering::Degree;
  all.push_back({"gat-degree", degree});
  return all;
}

// prepare_adjacency as make_graph does it (renamed edges when reordering).
Adjacency fresh_prepare(const Dataset& d, const GraphOptions& options, const Tensor& node_order) {
  if (!node_order.defined()) return prepare_adjacency(d.edges, options.prepare);
  Dataset edges_only;
  edges_only.edges = d.edges;
  return prepare_adjacency(reorder_dataset(edges_only, node_order).edges, options.prepare);
}

std::filesystem::path the_cache_file(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  return files.front();
}

// A valid cache file of a small (60 nodes) weighted or unweighted GCN graph,
// its fingerprint, and the file's contents for tests that tamper with them.
struct WrittenCache {
  TempDir dir;
  std::filesystem::path file;
  uint64_t fingerprint = 0;
  SectionFile contents;
};

void write_cache(WrittenCache& cache, bool weighted, Reordering reordering = Reordering::None) {
  const Dataset d = rmat_dataset(60, 400, 11, weighted);
  GraphOptions options = gcn_graph_options();
  options.reordering = reordering;
  make_graph(d, options, Device::cpu(), cache.dir.path().string());
  cache.file = the_cache_file(cache.dir.path());
  cache.fingerprint = adjacency_fingerprint(d.edges, options);
  cache.contents = read_section_file(cache.file, "adjacency-cache", kAdjacencyCacheVersion);
}

Tensor& section(SectionFile& file, const std::string& name) {
  for (auto& [section_name, tensor] : file.sections) {
    if (section_name == name) return tensor;
  }
  FAIL("no section ", name);
  throw std::logic_error("unreachable");
}

// The section's elements, on a private copy that the caller may change.
int32_t* writable_ints(SectionFile& file, const std::string& name) {
  Tensor& tensor = section(file, name);
  tensor = tensor.clone();
  return tensor.data<int32_t>();
}

// A change to a valid file's contents (rewritten with valid checksums) and
// the problem the loader must report for it.
struct Tampering {
  const char* what;
  bool weighted;
  Reordering reordering;
  std::function<void(SectionFile&)> change;
  const char* problem;
};

}  // namespace

TEST_CASE("adjacency cache: a cached load equals prepare_adjacency bit for bit for every preparation") {
  for (const bool weighted : {false, true}) {
    for (const Preparation& preparation : preparations()) {
      CAPTURE(weighted);
      CAPTURE(preparation.name);
      const Dataset d = rmat_dataset(97, 900, 3, weighted);
      TempDir dir;
      const Graph miss = make_graph(d, preparation.options, Device::cpu(), dir.path().string());
      REQUIRE_FALSE(miss.statistics.cache_hit);
      const Graph hit = make_graph(d, preparation.options, Device::cpu(), dir.path().string());
      REQUIRE(hit.statistics.cache_hit);
      const Adjacency expected = fresh_prepare(d, preparation.options, miss.node_order);
      check_same_adjacency(miss.adjacency, expected);
      check_same_adjacency(hit.adjacency, expected);
      hit.adjacency.validate();
      CHECK(hit.node_order.defined() == (preparation.options.reordering != Reordering::None));
      if (hit.node_order.defined()) CHECK(hit.node_order.to_vector<int32_t>() == miss.node_order.to_vector<int32_t>());

      // Values are stored only when the pattern cannot give them back.
      const SectionFile stored = read_section_file(hit.statistics.cache_path, "adjacency-cache", kAdjacencyCacheVersion);
      CHECK(stored.has("values") == (weighted && expected.values.defined()));
      CHECK_FALSE(stored.has("transpose.indices"));
      // A host adjacency's derived arrays too: a CPU hit maps them.
      CHECK(stored.has("derived.csr.row_order"));
      CHECK(stored.has("derived.transpose_to_csr") == expected.transpose_to_csr.defined());
      CHECK(stored.has("derived.symmetric_scale") == expected.symmetric_scale.defined());
    }
  }
}

TEST_CASE("adjacency cache: a CPU load asking for another edge map or symmetric scale derives what it asks for") {
  for (const bool weighted : {false, true}) {
    for (const Preparation& preparation : preparations()) {
      CAPTURE(weighted);
      CAPTURE(preparation.name);
      const Dataset d = rmat_dataset(97, 900, 4, weighted);
      TempDir dir;
      const Graph miss = make_graph(d, preparation.options, Device::cpu(), dir.path().string());
      PrepareOptions other = preparation.options.prepare;
      other.edge_map = !other.edge_map;
      other.symmetric_scale = !other.symmetric_scale;
      std::string problem;
      const std::optional<CachedAdjacency> loaded = load_adjacency_cache(
          miss.statistics.cache_path, adjacency_fingerprint(d.edges, preparation.options), problem, Device::cpu(), other);
      REQUIRE_MESSAGE(loaded.has_value(), problem);
      GraphOptions expected_options = preparation.options;
      expected_options.prepare = other;
      check_same_adjacency(loaded->adjacency, fresh_prepare(d, expected_options, miss.node_order));
    }
  }
}

TEST_CASE("adjacency cache: derived arrays with right checksums that are not the pattern's are refused") {
  GraphOptions row = gcn_graph_options();
  row.prepare.normalization = Normalization::Row;
  const GraphOptions plain;  // directed: Aᵀ stored with its edge map
  const auto swap_two = [](SectionFile& f, const std::string& name) {
    int32_t* values = writable_ints(f, name);
    std::swap(values[0], values[section(f, name).numel() - 1]);
  };
  struct DerivedTampering {
    const char* what;
    GraphOptions options;
    bool weighted;
    std::function<void(SectionFile&)> change;
    const char* problem;
  };
  const std::vector<DerivedTampering> tamperings{
      {"a row order out of order", gcn_graph_options(), false,
       [&](SectionFile& f) { swap_two(f, "derived.csr.row_order"); }, "not the rows by decreasing length"},
      {"a row order with a row outside the graph", gcn_graph_options(), false,
       [](SectionFile& f) { writable_ints(f, "derived.csr.row_order")[0] = 1 << 20; },
       "not the rows by decreasing length"},
      {"a transpose's row order out of order", plain, false,
       [&](SectionFile& f) { swap_two(f, "derived.transpose.row_order"); }, "not the rows by decreasing length"},
      {"an edge map that swaps two entries", gat_graph_options(), false,
       [&](SectionFile& f) { swap_two(f, "derived.transpose_to_csr"); }, "not those of the pattern"},
      {"an edge map entry outside the graph", plain, false,
       [](SectionFile& f) { writable_ints(f, "derived.transpose_to_csr")[0] = -1; }, "not those of the pattern"},
      {"an unsorted transpose", plain, false,
       [&](SectionFile& f) { swap_two(f, "derived.transpose.indices"); }, "not a sorted, duplicate-free pattern"},
      {"an unknown transpose mode", gcn_graph_options(), false,
       [](SectionFile& f) { f.metadata["transpose"] = "sideways"; }, "do not fit together"},
      {"derived values missing", row, false,
       [](SectionFile& f) { std::erase_if(f.sections, [](const auto& s) { return s.first == "derived.values"; }); },
       "do not fit together"},
      {"derived values of the wrong length", row, false,
       [](SectionFile& f) { section(f, "derived.values") = Tensor::full({3}, 1.0); }, "do not fit the pattern"},
      {"a stored transpose's values missing", plain, true,
       [](SectionFile& f) {
         std::erase_if(f.sections, [](const auto& s) { return s.first == "derived.transpose_values"; });
       },
       "missing section \"derived.transpose_values\""},
  };
  for (const DerivedTampering& tampering : tamperings) {
    CAPTURE(tampering.what);
    const Dataset d = rmat_dataset(60, 400, 11, tampering.weighted);
    TempDir dir;
    const Graph miss = make_graph(d, tampering.options, Device::cpu(), dir.path().string());
    const uint64_t fingerprint = adjacency_fingerprint(d.edges, tampering.options);
    std::string problem;
    REQUIRE(load_adjacency_cache(miss.statistics.cache_path, fingerprint, problem, Device::cpu(),
                                 tampering.options.prepare));
    SectionFile bad = read_section_file(miss.statistics.cache_path, "adjacency-cache", kAdjacencyCacheVersion);
    tampering.change(bad);
    write_section_file(miss.statistics.cache_path, bad);
    CHECK_FALSE(load_adjacency_cache(miss.statistics.cache_path, fingerprint, problem, Device::cpu(),
                                     tampering.options.prepare));
    CHECK_MESSAGE(problem.find(tampering.problem) != std::string::npos, problem);
  }
}

TEST_CASE("adjacency cache: the HRPB layout of a cached adjacency equals that of a fresh one") {
  const Dataset d = rmat_dataset(300, 4000, 21, false);
  TempDir dir;
  make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  Graph hit = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  REQUIRE(hit.statistics.cache_hit);
  HrpbOptions options;
  options.concurrent_blocks = 32;
  Adjacency fresh = prepare_adjacency(d.edges, gcn_graph_options().prepare);
  attach_hrpb(fresh, SpmmFormat::Hrpb, options);
  // Built from the cached adjacency (and stored), then loaded from the HRPB cache.
  for (const bool expect_hit : {false, true}) {
    CAPTURE(expect_hit);
    Adjacency cached = hit.adjacency;
    const HrpbAttachment attachment = attach_hrpb_cached(cached, SpmmFormat::Hrpb, options, hit.statistics.cache_path);
    CHECK(attachment.cache_hit == expect_hit);
    REQUIRE(cached.hrpb != nullptr);
    for (const auto& [got, want] : {std::pair{&cached.hrpb->forward, &fresh.hrpb->forward},
                                    std::pair{&cached.hrpb->transpose, &fresh.hrpb->transpose}}) {
      CHECK(got->num_blocks == want->num_blocks);
      CHECK(got->max_block_words == want->max_block_words);
      CHECK(got->statistics.num_bricks == want->statistics.num_bricks);
      CHECK(got->packed_blocks.to_vector<int32_t>() == want->packed_blocks.to_vector<int32_t>());
      CHECK(got->blocked_row_ptr.to_vector<int32_t>() == want->blocked_row_ptr.to_vector<int32_t>());
      CHECK(got->active_cols.to_vector<int32_t>() == want->active_cols.to_vector<int32_t>());
    }
  }
}

TEST_CASE("adjacency cache: a file of format version 1 is refused cleanly and rebuilt") {
  const Dataset d = rmat_dataset(50, 300, 5, false);
  TempDir dir;
  const Graph first = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  // A version-1 file (every prepared tensor) under the current name and fingerprint.
  SectionFile old;
  old.kind = "adjacency-cache";
  old.kind_version = 1;
  old.fingerprint = adjacency_fingerprint(d.edges, gcn_graph_options());
  old.metadata["num_nodes"] = std::to_string(first.adjacency.num_rows());
  old.metadata["nnz"] = std::to_string(first.adjacency.nnz());
  old.add("csr.indptr", first.adjacency.csr.indptr);
  old.add("csr.indices", first.adjacency.csr.indices);
  old.add("transpose.indptr", first.adjacency.transpose.indptr);
  old.add("transpose.indices", first.adjacency.transpose.indices);
  old.add("transpose_to_csr", first.adjacency.csr.indices);  // never read: the version is refused first
  old.add("values", first.adjacency.values);
  old.add("transpose_values", first.adjacency.transpose_values);
  write_section_file(first.statistics.cache_path, old);

  std::string problem;
  CHECK_FALSE(load_adjacency_cache(first.statistics.cache_path, old.fingerprint, problem));
  const std::string refused = "format version 1, this build reads version " + std::to_string(kAdjacencyCacheVersion);
  CHECK_MESSAGE(problem.find(refused) != std::string::npos, problem);
  const Graph rebuilt = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  CHECK_FALSE(rebuilt.statistics.cache_hit);
  check_same_adjacency(rebuilt.adjacency, first.adjacency);
  CHECK(make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string()).statistics.cache_hit);
}

TEST_CASE("adjacency cache: sections with right checksums but a wrong pattern are refused") {
  // First entry of the first row with at least two entries.
  auto long_row = [](SectionFile& f) {
    const std::vector<int32_t> indptr = section(f, "csr.indptr").to_vector<int32_t>();
    std::size_t row = 0;
    while (indptr[row + 1] - indptr[row] < 2) ++row;
    return static_cast<std::size_t>(indptr[row]);
  };
  const std::vector<Tampering> tamperings{
      {"an unsorted row", false, Reordering::None,
       [&](SectionFile& f) {
         const std::size_t k = long_row(f);
         int32_t* indices = writable_ints(f, "csr.indices");
         std::swap(indices[k], indices[k + 1]);
       },
       "not a sorted, duplicate-free pattern"},
      {"a repeated column", false, Reordering::None,
       [&](SectionFile& f) {
         const std::size_t k = long_row(f);
         int32_t* indices = writable_ints(f, "csr.indices");
         indices[k + 1] = indices[k];
       },
       "not a sorted, duplicate-free pattern"},
      // The last row's last column, still increasing but == num_nodes.
      {"a column outside the graph", false, Reordering::None,
       [](SectionFile& f) { writable_ints(f, "csr.indices")[section(f, "csr.indices").numel() - 1] = 60; },
       "not a sorted, duplicate-free pattern"},
      {"a negative column", false, Reordering::None, [](SectionFile& f) { writable_ints(f, "csr.indices")[0] = -1; },
       "not a sorted, duplicate-free pattern"},
      {"decreasing offsets", false, Reordering::None,
       [](SectionFile& f) {
         int32_t* indptr = writable_ints(f, "csr.indptr");
         indptr[5] = indptr[6] + 1;
       },
       "not a sorted, duplicate-free pattern"},
      {"offsets that do not end at nnz", false, Reordering::None,
       [](SectionFile& f) {
         const int64_t nnz = section(f, "csr.indices").numel() - 1;
         f.metadata["nnz"] = std::to_string(nnz);
         section(f, "csr.indices") = section(f, "csr.indices").narrow_rows(0, nnz).clone();
       },
       "not a sorted, duplicate-free pattern"},
      {"int64 offsets for a small nnz", false, Reordering::None,
       [](SectionFile& f) {
         const std::vector<int32_t> narrow = section(f, "csr.indptr").to_vector<int32_t>();
         section(f, "csr.indptr") = Tensor::from_vector(std::vector<int64_t>(narrow.begin(), narrow.end()),
                                                        {static_cast<int64_t>(narrow.size())});
       },
       "do not fit together"},
      {"offsets one short", false, Reordering::None,
       [](SectionFile& f) {
         const int64_t rows = section(f, "csr.indptr").numel() - 1;
         section(f, "csr.indptr") = section(f, "csr.indptr").narrow_rows(0, rows).clone();
       },
       "do not fit together"},
      {"an unknown values mode", false, Reordering::None, [](SectionFile& f) { f.metadata["values"] = "cubic"; },
       "not a known mode"},
      {"values where they are derived", false, Reordering::None,
       [](SectionFile& f) { f.add("values", Tensor::full({section(f, "csr.indices").numel()}, 1.0)); },
       "present although"},
      {"stored values of the wrong length", true, Reordering::None,
       [](SectionFile& f) { section(f, "values") = Tensor::full({3}, 1.0); }, "does not fit the pattern"},
      {"stored values missing", true, Reordering::None,
       [](SectionFile& f) { std::erase_if(f.sections, [](const auto& s) { return s.first == "values"; }); },
       "missing section \"values\""},
      {"a node order with a repeated node", false, Reordering::Degree,
       [](SectionFile& f) {
         int32_t* order = writable_ints(f, "node_order");
         order[1] = order[0];
       },
       "not a permutation"},
      {"a node order outside the graph", false, Reordering::Degree,
       [](SectionFile& f) { writable_ints(f, "node_order")[0] = 60; }, "not a permutation"},
  };
  for (const Tampering& tampering : tamperings) {
    CAPTURE(tampering.what);
    WrittenCache cache;
    write_cache(cache, tampering.weighted, tampering.reordering);
    SectionFile bad = cache.contents;
    tampering.change(bad);
    write_section_file(cache.file, bad);
    std::string problem;
    CHECK_FALSE(load_adjacency_cache(cache.file, cache.fingerprint, problem));
    CHECK_MESSAGE(problem.find(tampering.problem) != std::string::npos, problem);
  }
}

TEST_CASE("section file: payloads larger than one read chunk round-trip; damage in a later chunk is caught") {
  TempDir dir;
  const int64_t count = (int64_t{9} << 20) / 4 + 17;  // 9 MiB + a tail: three 4 MiB chunks, the last partial
  std::vector<int32_t> values(static_cast<std::size_t>(count));
  std::iota(values.begin(), values.end(), -1000);
  SectionFile written;
  written.kind = "checkpoint";
  written.add("small", Tensor::full({5}, 2.0));
  written.add("big", Tensor::from_vector(values, {count}));
  written.add("empty", Tensor::empty({0}, DType::Int32));
  write_section_file(dir / "big.sgnn", written);
  const SectionFile read = read_section_file(dir / "big.sgnn", "checkpoint", 1);
  CHECK(read.at("big").to_vector<int32_t>() == values);
  CHECK(read.at("small").to_vector<float>() == std::vector<float>(5, 2.0f));
  CHECK(read.at("empty").numel() == 0);

  const std::string good = sgnn::testing::read_bytes(dir / "big.sgnn");
  for (const double where : {0.55, 0.97}) {  // inside the second and the last chunk of "big"
    CAPTURE(where);
    std::string bytes = good;
    const auto at = static_cast<std::size_t>(static_cast<double>(bytes.size()) * where);
    bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
    sgnn::testing::write_text(dir / "big.sgnn", bytes);
    CHECK_THROWS_WITH_AS(read_section_file(dir / "big.sgnn", "checkpoint", 1),
                         doctest::Contains("checksum mismatch in section \"big\""), IoError);
    std::string cut = good;
    cut.resize(at);
    sgnn::testing::write_text(dir / "big.sgnn", cut);
    CHECK_THROWS_WITH_AS(read_section_file(dir / "big.sgnn", "checkpoint", 1), doctest::Contains("truncated"), IoError);
  }
}

TEST_CASE("adjacency_from_pattern refuses weights that do not fit and check_sorted_pattern accepts prepare's output") {
  const Adjacency prepared = prepare_adjacency(rmat_dataset(40, 200, 8, false).edges, gcn_graph_options().prepare);
  Csr pattern = prepared.csr;
  pattern.row_order = Tensor();
  CHECK_NOTHROW(check_sorted_pattern(pattern, "here"));
  check_same_adjacency(adjacency_from_pattern(pattern, Tensor(), gcn_graph_options().prepare),
                       prepared);
  CHECK_THROWS_AS(adjacency_from_pattern(pattern, Tensor::full({3}, 1.0), PrepareOptions{}),
                  InvalidArgument);
  Csr rectangular = pattern;
  rectangular.num_cols = pattern.num_rows + 1;
  CHECK_THROWS_WITH_AS(check_sorted_pattern(rectangular, "here"), doctest::Contains("do not fit together"), IoError);
}

TEST_CASE("adjacency_from_pattern on the host equals prepare_adjacency bitwise, every option, adversarial graphs") {
  for (const auto& graph : sgnn::testing::test_graphs(/*large=*/false)) {
    for (const PrepareOptions& options : sgnn::testing::all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(sgnn::testing::describe(options));
      const Adjacency prepared = prepare_adjacency(graph.edges, options);
      Csr pattern = prepared.csr;
      pattern.row_order = Tensor();
      CHECK_NOTHROW(check_sorted_pattern(pattern, "prepared"));
      // What the cache keeps: the values themselves for weighted edges, else the normalisation.
      const bool weighted = graph.edges.weight.defined();
      PrepareOptions derive = options;
      if (weighted) derive.normalization = Normalization::None;
      check_same_adjacency(adjacency_from_pattern(pattern, weighted ? prepared.values : Tensor(), derive), prepared);
    }
  }
}
