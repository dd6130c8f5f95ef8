// The processed file of a dataset: what the readers parsed (edges, features,
// labels, splits) as one section file (kind "processed-dataset"), written
// after the first parse and mapped (mmap) by every later load instead of
// parsing again.
//
// Where: <dataset folder>/processed/dataset.sgnn (a single-file dataset:
// <its folder>/processed/<file name>.sgnn); when that folder is not
// writable, <cache folder>/processed-<hash of the dataset's path>.sgnn.
//
// Staleness: the file records every input file of the dataset (all regular
// files under the dataset folder except processed/, or the single file) with
// its size and modification time, and a hash of their bytes taken at write
// time. A load compares names, sizes and times (no byte is read); when only
// times differ it hashes the inputs and, if the hash matches, re-stamps the
// file instead of parsing. Inputs modified within a second of being stamped
// are checked by their hash on every load (a rewrite that fast may keep the
// file's size and time). Any other difference makes it stale: it is
// reported and rebuilt. The stored hash is the dataset's fingerprint, which
// keys the adjacency and HRPB caches (no hash of the edges on a hit).
//
// A file that is truncated, of another format version, of another dataset,
// damaged (checksums) or inconsistent is reported in one line on stderr and
// rebuilt; writes are atomic, so a process killed while writing leaves the
// previous file intact.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

// Bump when a reader's output or this file's content changes: old files are rebuilt.
// Version 2 may hold a prebuilt CSR (sections csr.indptr, csr.indices:
// Dataset::csr, instead of the edge sections) and bfloat16 features;
// version 3 the edges' features (section edge_features, float32 [E, F_e]).
// Files of versions 1 and 2 still load, except one made from inputs that
// include an edge-feat file (those older readers skipped it): it is stale.
inline constexpr uint32_t kProcessedDatasetVersion = 3;
inline constexpr uint32_t kOldestProcessedDatasetVersion = 1;

// One input file of a dataset: its path relative to the dataset (the file
// name for a single-file dataset), size and modification time.
struct InputStamp {
  std::string path;
  uint64_t bytes = 0;
  int64_t modified_ns = 0;
  bool operator==(const InputStamp&) const = default;
};

// The input files of the dataset at `location` (a folder or a file), sorted by path.
std::vector<InputStamp> input_stamps(const std::filesystem::path& location);

// Hash of the bytes of every input (in stamp order, each file's name and size included).
uint64_t hash_inputs(const std::filesystem::path& location, const std::vector<InputStamp>& stamps);

// The processed file's path in the dataset folder and in `cache_folder`.
std::filesystem::path processed_path_beside(const std::filesystem::path& location);
std::filesystem::path processed_path_in_cache(const std::filesystem::path& location,
                                              const std::filesystem::path& cache_folder);

// The wall-clock time to record with stamps taken now (nanoseconds).
int64_t stamp_time_now();

// Writes `dataset` (parsed from inputs `stamps`, taken at `stamped_at_ns`,
// whose bytes hash to `input_hash`) to `file` atomically. Throws IoError
// when it cannot.
void store_processed_dataset(const std::filesystem::path& file, const Dataset& dataset,
                             const std::vector<InputStamp>& stamps, uint64_t input_hash, int64_t stamped_at_ns);

// Maps `file` when it was made from the current inputs of `location`.
// nullopt with `problem` set when it is unusable (stale, truncated, damaged,
// other version, other dataset); `problem` empty when the file is simply
// absent. Small sections (labels, splits) are checked here; the large ones
// are checked too unless `defer_checks`, then they are left in
// Dataset::unchecked for the caller. Sets fingerprint and load.
std::optional<Dataset> load_processed_dataset(const std::filesystem::path& file, const std::filesystem::path& location,
                                              bool defer_checks, std::string& problem);

// Checks a section of Dataset::unchecked on the host and removes it from
// the list; IoError naming the processed file when its checksum differs.
void verify_section(Dataset& dataset, const std::string& section);

// Same, for every section still unchecked.
void verify_all_sections(Dataset& dataset);

}  // namespace sgnn::graph_io
