#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/processed_dataset.hpp"
#include "graph_io/section_file.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;
namespace fs = std::filesystem;

namespace {

Dataset small_dataset(uint64_t seed = 1) {
  SyntheticOptions options;
  options.num_nodes = 300;
  options.num_edges = 2000;
  options.num_features = 12;
  options.seed = seed;
  return generate_synthetic_dataset(options);
}

// A dataset folder in OGB layout (plain CSV, so a file can be edited in place).
fs::path write_folder(const TempDir& dir, const Dataset& dataset, const std::string& name = "graph") {
  write_ogb_dataset(dataset, dir / name, OgbWriteOptions{false});
  return dir / name;
}

template <typename T>
void check_same(const Tensor& a, const Tensor& b) {
  REQUIRE(a.defined() == b.defined());
  if (!a.defined()) return;
  CHECK(a.shape() == b.shape());
  CHECK(a.to_vector<T>() == b.to_vector<T>());
}

void check_same_dataset(const Dataset& a, const Dataset& b) {
  CHECK(a.num_nodes() == b.num_nodes());
  CHECK(a.num_classes == b.num_classes);
  check_same<int32_t>(a.edges.source, b.edges.source);
  check_same<int32_t>(a.edges.target, b.edges.target);
  check_same<float>(a.features, b.features);
  check_same<int32_t>(a.labels, b.labels);
  check_same<int32_t>(a.train_index, b.train_index);
  check_same<int32_t>(a.valid_index, b.valid_index);
  check_same<int32_t>(a.test_index, b.test_index);
}

// Sets a file's modification time `seconds` into the past (contents unchanged).
void age(const fs::path& file, int seconds) {
  struct stat status {};
  REQUIRE(::stat(file.c_str(), &status) == 0);
  timespec times[2] = {status.st_atim, status.st_mtim};
  times[0].tv_sec -= seconds;
  times[1].tv_sec -= seconds;
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
}

// Ages every input so that no load treats them as freshly written ("racy").
void age_inputs(const fs::path& folder) {
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) age(entry.path(), 10);
  }
}

}  // namespace

TEST_CASE("processed dataset: the first load parses and writes it, the next maps it and gives the same tensors") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  const Dataset parsed = load_dataset(folder.string());
  CHECK_FALSE(parsed.load.processed_hit);
  CHECK(parsed.load.processed_path == (folder / "processed" / "dataset.sgnn").string());
  CHECK(fs::exists(folder / "processed" / "dataset.sgnn"));
  CHECK(parsed.fingerprint != 0);
  const Dataset mapped = load_dataset(folder.string());
  CHECK(mapped.load.processed_hit);
  CHECK(mapped.load.note.empty());
  CHECK(mapped.fingerprint == parsed.fingerprint);
  CHECK(mapped.name == parsed.name);
  check_same_dataset(mapped, parsed);
  CHECK(mapped.unchecked.empty());  // checked by default
  // Deferred checks leave the large sections to the caller.
  LoadOptions deferred;
  deferred.defer_checks = true;
  Dataset lazy = load_dataset(folder.string(), deferred);
  CHECK(lazy.unchecked.contains("features"));
  CHECK(lazy.unchecked.contains("edges.source"));
  verify_all_sections(lazy);
  CHECK(lazy.unchecked.empty());
  // Without processed files: parsed, nothing written.
  LoadOptions plain;
  plain.processed = false;
  const Dataset reparsed = load_dataset(folder.string(), plain);
  CHECK_FALSE(reparsed.load.processed_hit);
  check_same_dataset(reparsed, parsed);
}

TEST_CASE("processed dataset: changed, added or removed raw files make it stale, and it is rebuilt") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset(1));
  age_inputs(folder);
  (void)load_dataset(folder.string());
  // Another graph's edges in place of this one's.
  write_ogb_dataset(small_dataset(2), dir / "other", OgbWriteOptions{false});
  fs::copy_file(dir / "other" / "raw" / "edge.csv", folder / "raw" / "edge.csv", fs::copy_options::overwrite_existing);
  fs::copy_file(dir / "other" / "raw" / "num-edge-list.csv", folder / "raw" / "num-edge-list.csv",
                fs::copy_options::overwrite_existing);
  const Dataset rebuilt = load_dataset(folder.string());
  CHECK_FALSE(rebuilt.load.processed_hit);
  LoadOptions plain;
  plain.processed = false;
  check_same_dataset(rebuilt, load_dataset(folder.string(), plain));
  age_inputs(folder);
  CHECK(load_dataset(folder.string()).load.processed_hit);
  // A new file inside the dataset folder: stale.
  sgnn::testing::write_text(folder / "raw" / "notes.txt", "x");
  age(folder / "raw" / "notes.txt", 10);
  CHECK_FALSE(load_dataset(folder.string()).load.processed_hit);
  // Removed: stale again.
  fs::remove(folder / "raw" / "notes.txt");
  CHECK_FALSE(load_dataset(folder.string()).load.processed_hit);
}

TEST_CASE("processed dataset: touched but unchanged raw files are recognised by their hash and re-stamped") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  const Dataset first = load_dataset(folder.string());
  age(folder / "raw" / "node-feat.csv", 100);  // a copy that changed times only
  const Dataset touched = load_dataset(folder.string());
  CHECK(touched.load.processed_hit);
  CHECK(touched.load.note.find("re-stamped") != std::string::npos);
  check_same_dataset(touched, first);
  const Dataset again = load_dataset(folder.string());
  CHECK(again.load.processed_hit);
  CHECK(again.load.note.empty());
}

TEST_CASE("processed dataset: a raw file rewritten within a second with the same size and time is still caught") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  (void)load_dataset(folder.string());  // inputs just written: "racy"
  // Same size, different bytes, and the old modification time put back.
  const fs::path labels = folder / "raw" / "node-label.csv";
  struct stat before {};
  REQUIRE(::stat(labels.c_str(), &before) == 0);
  std::string text = sgnn::testing::read_bytes(labels);
  std::size_t digit = text.find_first_of("0123456789");
  text[digit] = text[digit] == '0' ? '1' : '0';
  sgnn::testing::write_text(labels, text);
  const timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, labels.c_str(), times, 0) == 0);
  const Dataset reloaded = load_dataset(folder.string());
  CHECK_FALSE(reloaded.load.processed_hit);
  LoadOptions plain;
  plain.processed = false;
  check_same_dataset(reloaded, load_dataset(folder.string(), plain));
}

TEST_CASE("processed dataset: truncated, damaged, foreign or other-version files are reported and rebuilt") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  const Dataset reference = load_dataset(folder.string());
  const fs::path processed = folder / "processed" / "dataset.sgnn";
  const std::string good = sgnn::testing::read_bytes(processed);
  const auto expect_problem = [&](const std::string& bytes, const std::string& reason) {
    sgnn::testing::write_text(processed, bytes);
    std::string problem;
    CHECK_FALSE(load_processed_dataset(processed, folder, false, problem).has_value());
    CHECK_MESSAGE(problem.find(reason) != std::string::npos, problem);
    const Dataset rebuilt = load_dataset(folder.string());  // reported on stderr, parsed, rewritten
    CHECK_FALSE(rebuilt.load.processed_hit);
    check_same_dataset(rebuilt, reference);
    CHECK(load_dataset(folder.string()).load.processed_hit);
  };
  expect_problem(good.substr(0, good.size() / 2), "truncated");
  std::string damaged = good;
  damaged[damaged.size() - 3] = static_cast<char>(damaged[damaged.size() - 3] ^ 0x10);  // the last section's payload
  expect_problem(damaged, "checksum mismatch");
  expect_problem("not a section file at all, just text", "");
  // Another version of the format.
  SectionFile older = read_section_file(processed, "processed-dataset", kProcessedDatasetVersion);
  older.kind_version = kProcessedDatasetVersion + 1;
  write_section_file(dir / "older.sgnn", older);
  expect_problem(sgnn::testing::read_bytes(dir / "older.sgnn"), "format version");
  // Another dataset's processed file copied over this one's.
  const fs::path other = write_folder(dir, small_dataset(7), "other");
  (void)load_dataset(other.string());
  expect_problem(sgnn::testing::read_bytes(other / "processed" / "dataset.sgnn"), "stale");
}

TEST_CASE("processed dataset: a label or split id out of range, under valid checksums, is named with its entry") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  const Dataset reference = load_dataset(folder.string());
  const fs::path processed = folder / "processed" / "dataset.sgnn";
  const SectionFile good = read_section_file(processed, "processed-dataset", kProcessedDatasetVersion);
  const int64_t classes = reference.num_classes;
  const auto expect_out_of_range = [&](const std::string& section, int64_t entry, int32_t value,
                                       const std::string& reason) {
    SectionFile edited = good;
    for (auto& [name, tensor] : edited.sections) {
      if (name != section) continue;
      tensor = tensor.clone();
      tensor.data<int32_t>()[entry] = value;
    }
    write_section_file(processed, edited);  // checksums of the edited bytes: only the check on ids can tell
    age(processed, 0);
    std::string problem;
    CHECK_FALSE(load_processed_dataset(processed, folder, false, problem).has_value());
    CHECK_MESSAGE(problem.find(reason) != std::string::npos, problem);
  };
  expect_out_of_range("labels", 17, static_cast<int32_t>(classes),
                      "a label out of range: entry 17 is " + std::to_string(classes) + ", not in [0, " +
                          std::to_string(classes) + ")");
  expect_out_of_range("labels", 3, -1, "a label out of range: entry 3 is -1");
  expect_out_of_range("train_index", 0, 300, "a split's node id out of range: entry 0 is 300, not in [0, 300)");
}

TEST_CASE("processed dataset: a damaged large section with deferred checks is caught where it is read") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  (void)load_dataset(folder.string());
  const fs::path processed = folder / "processed" / "dataset.sgnn";
  // Flip one feature byte in the file, leaving the header (and its checksums) as they were:
  // the features' first 64 bytes (random floats) are found in the file by value.
  const SectionFile stored = read_section_file(processed, "processed-dataset", kProcessedDatasetVersion);
  const std::string first_features(static_cast<const char*>(stored.at("features").raw_data()), 64);
  std::string bytes = sgnn::testing::read_bytes(processed);
  const std::size_t features_offset = bytes.find(first_features);
  REQUIRE(features_offset != std::string::npos);
  bytes[features_offset + 5] = static_cast<char>(bytes[features_offset + 5] ^ 0x01);
  sgnn::testing::write_text(processed, bytes);
  age(processed, 0);
  LoadOptions deferred;
  deferred.defer_checks = true;
  const Dataset lazy = load_dataset(folder.string(), deferred);
  REQUIRE(lazy.load.processed_hit);  // the header is fine, the features are not checked yet
  try {
    (void)make_graph(lazy, gcn_graph_options(), Device::cpu());
    FAIL("make_graph used damaged features");
  } catch (const IoError& error) {
    CHECK(error.file() == processed.string());
    CHECK(std::string(error.what()).find("checksum mismatch in section \"features\"") != std::string::npos);
  }
  // Checked at load (the default): reported and rebuilt from the raw files.
  const Dataset checked = load_dataset(folder.string());
  CHECK_FALSE(checked.load.processed_hit);
}

TEST_CASE("processed dataset: a dataset folder that cannot take it puts it in the cache folder") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  sgnn::testing::write_text(folder / "processed", "a file where the folder would go");  // even root cannot write there
  age(folder / "processed", 10);
  LoadOptions options;
  options.cache_dir = (dir / "cache").string();
  const Dataset first = load_dataset(folder.string(), options);
  CHECK_FALSE(first.load.processed_hit);
  REQUIRE_FALSE(first.load.processed_path.empty());
  CHECK(fs::path(first.load.processed_path).parent_path() == dir / "cache");
  const Dataset second = load_dataset(folder.string(), options);
  CHECK(second.load.processed_hit);
  check_same_dataset(second, first);
}

TEST_CASE("processed dataset: single-file datasets (edge list, Matrix Market) get theirs beside the file") {
  TempDir dir;
  sgnn::testing::write_text(dir / "graph.txt", "0 1\n1 2\n2 0\n");
  sgnn::testing::write_text(dir / "matrix.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
  age(dir / "graph.txt", 10);
  age(dir / "matrix.mtx", 10);
  for (const char* name : {"graph.txt", "matrix.mtx"}) {
    CAPTURE(name);
    const Dataset parsed = load_dataset((dir / name).string());
    CHECK(fs::exists(dir / "processed" / (std::string(name) + ".sgnn")));
    const Dataset mapped = load_dataset((dir / name).string());
    CHECK(mapped.load.processed_hit);
    check_same_dataset(mapped, parsed);
  }
}

TEST_CASE("processed dataset: the adjacency cache is keyed by the stored fingerprint, hit without hashing edges") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  const Dataset parsed = load_dataset(folder.string());
  const Dataset mapped = load_dataset(folder.string());
  CHECK(adjacency_fingerprint(parsed, gcn_graph_options()) == adjacency_fingerprint(mapped, gcn_graph_options()));
  CHECK(adjacency_fingerprint(mapped, gcn_graph_options()) != adjacency_fingerprint(mapped, gat_graph_options()));
  Dataset anonymous = mapped;
  anonymous.fingerprint = 0;  // built in memory: the edges are hashed instead
  CHECK(adjacency_fingerprint(anonymous, gcn_graph_options()) == adjacency_fingerprint(mapped.edges, gcn_graph_options()));
  const Graph miss = make_graph(mapped, gcn_graph_options(), Device::cpu(), (dir / "cache").string());
  const Graph hit = make_graph(mapped, gcn_graph_options(), Device::cpu(), (dir / "cache").string());
  CHECK_FALSE(miss.statistics.cache_hit);
  CHECK(hit.statistics.cache_hit);
  const uint64_t key = adjacency_fingerprint(mapped, gcn_graph_options());
  CHECK(cached_adjacency_entries(adjacency_cache_path(dir / "cache", key), key) == hit.adjacency.nnz());
  CHECK_FALSE(cached_adjacency_entries(adjacency_cache_path(dir / "cache", key), key + 1).has_value());
  // The lookup a memory check makes before make_graph: the same file, keyed by the same options.
  CHECK(adjacency_cache_entry(dir / "cache", mapped, gcn_graph_options()).file.string() == hit.statistics.cache_path);
  CHECK(cached_adjacency_entries(dir / "cache", mapped, gcn_graph_options()) == hit.adjacency.nnz());
  CHECK_FALSE(cached_adjacency_entries(dir / "cache", mapped, gat_graph_options()).has_value());
}

TEST_CASE("processed dataset: written on a thread of its own, complete once the last copy of the dataset is gone") {
  TempDir dir;
  const fs::path folder = write_folder(dir, small_dataset());
  age_inputs(folder);
  LoadOptions background;
  background.store_in_background = true;
  Dataset parsed;
  {
    const Dataset first = load_dataset(folder.string(), background);
    CHECK_FALSE(first.load.processed_hit);
    REQUIRE(first.load.pending_store != nullptr);
    CHECK(first.load.processed_path == (folder / "processed" / "dataset.sgnn").string());
    parsed = first;  // a copy keeps the write waiting for it alive
  }
  parsed.load.pending_store->wait();
  const Dataset mapped = load_dataset(folder.string());
  CHECK(mapped.load.processed_hit);
  check_same_dataset(mapped, parsed);
}
