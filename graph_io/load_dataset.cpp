#include "graph_io/load_dataset.hpp"

#include <chrono>
#include <future>
#include <iostream>

#include "graph_io/dataset_catalog.hpp"
#include "graph_io/dataset_locations.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/readers/planetoid_reader.hpp"
#include "graph_io/processed_dataset.hpp"
#include "graph_io/readers/readers.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& file, std::string_view extension) {
  std::string name = file.filename().string();
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  return name.size() > extension.size() && name.ends_with(extension);
}

void warn(const std::string& message) { std::cerr << "sparsegnn: " << message << "\n"; }

Dataset parse_path(const fs::path& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    if (is_ogb_directory(path)) return read_ogb_dataset(path);
    std::string planetoid_name;
    if (is_planetoid_folder(path, &planetoid_name)) return read_planetoid(path, planetoid_name);
    throw IoError(path.string(), 0,
                  "is a folder but neither an OGB raw-layout dataset (no raw/edge.csv.gz or raw/edge.csv) nor "
                  "one set of Planetoid files (ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index})");
  }
  const auto started = std::chrono::steady_clock::now();
  Dataset dataset = has_extension(path, ".mtx") ? read_matrix_market(path) : read_edge_list(path, EdgeListOptions{});
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

// Whether `path` lies in the bundled datasets' folder (an install prefix's
// share/sparsegnn/datasets, or the build tree's copy).
bool bundled(const fs::path& path) {
  const std::optional<fs::path> folder = bundled_dataset_folder();
  if (!folder) return false;
  std::error_code error;
  const fs::path relative = fs::weakly_canonical(path, error).lexically_relative(fs::weakly_canonical(*folder, error));
  return !error && !relative.empty() && *relative.begin() != "..";
}

// Where the processed file of `path` may be: beside it, then in the cache
// folder; a bundled dataset's only in the cache folder, since an install
// prefix is never written into (even where its files are writable).
std::vector<fs::path> processed_candidates(const fs::path& path, const LoadOptions& options) {
  std::vector<fs::path> candidates;
  if (!bundled(path)) candidates.push_back(processed_path_beside(path));
  std::optional<fs::path> cache = options.cache_dir.empty() ? user_cache_folder() : fs::path(options.cache_dir);
  if (cache) candidates.push_back(processed_path_in_cache(path, *cache));
  return candidates;
}

// Writes `dataset`'s processed file to the first candidate folder that takes
// it; the file it went to, or "" with `failures` saying why none.
std::string store_first(const std::vector<fs::path>& candidates, const Dataset& dataset,
                        const std::vector<InputStamp>& stamps, int64_t stamped_at, std::string& failures) {
  for (const fs::path& candidate : candidates) {
    try {
      store_processed_dataset(candidate, dataset, stamps, dataset.fingerprint, stamped_at);
      return candidate.string();
    } catch (const IoError& failure) {
      failures += detail::concat(failures.empty() ? "" : "; ", failure.what());
    }
  }
  return "";
}

// Parses `path` and writes its processed file (now, or on a thread of its own).
Dataset parse_and_store(const fs::path& path, const std::vector<fs::path>& candidates, bool in_background) {
  const int64_t stamped_at = stamp_time_now();
  const std::vector<InputStamp> stamps = input_stamps(path);  // before parsing: a file changed meanwhile is stale next time
  Dataset dataset = parse_path(path);
  const auto hash_started = std::chrono::steady_clock::now();
  dataset.fingerprint = hash_inputs(path, stamps);
  dataset.read_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - hash_started).count();
  if (in_background) {
    // Copies of the tensor handles: the parsed data stays alive (and unchanged) until the write ends.
    dataset.load.processed_path = candidates.front().string();
    dataset.load.pending_store = std::make_shared<std::future<void>>(
        std::async(std::launch::async, [candidates, stamps, stamped_at, snapshot = dataset] {
          std::string failures;
          if (store_first(candidates, snapshot, stamps, stamped_at, failures).empty()) {
            warn("warning: could not write the processed file (" + failures + "); the next load parses again");
          }
        }));
    return dataset;
  }
  std::string failures;
  dataset.load.processed_path = store_first(candidates, dataset, stamps, stamped_at, failures);
  if (dataset.load.processed_path.empty()) {
    dataset.load.note = "could not write the processed file (" + failures + "); the next load parses again";
    warn("warning: " + dataset.load.note);
  }
  return dataset;
}

Dataset load_path(const fs::path& path, const LoadOptions& options) {
  const std::vector<fs::path> candidates = processed_candidates(path, options);
  if (!options.processed || candidates.empty()) return parse_path(path);  // empty: bundled, and no cache folder
  if (!options.rebuild) {
    for (const fs::path& candidate : candidates) {
      std::string problem;
      std::optional<Dataset> mapped = load_processed_dataset(candidate, path, options.defer_checks, problem);
      if (mapped) {
        if (!mapped->load.note.empty()) warn(mapped->load.note + " (" + candidate.string() + ")");
        return std::move(*mapped);
      }
      if (!problem.empty()) warn("ignoring the processed dataset (" + problem + "); rebuilding it");
    }
  }
  return parse_and_store(path, candidates, options.store_in_background);
}

bool looks_like_path(const std::string& text) {
  return text.find('/') != std::string::npos || text.starts_with(".") || text.find('.') != std::string::npos;
}

}  // namespace

Dataset load_dataset(const std::string& name_or_path, const LoadOptions& options) {
  if (name_or_path.empty()) throw IoError("<dataset>", 0, "empty dataset name");
  std::error_code error;
  if (fs::exists(name_or_path, error)) return load_path(name_or_path, options);
  if (looks_like_path(name_or_path)) throw IoError(name_or_path, 0, "no such file or folder");
  std::string searched;
  for (const fs::path& place : dataset_search_path()) {
    const fs::path candidate = place / name_or_path;
    if (fs::exists(candidate, error)) return load_path(candidate, options);
    searched += detail::concat(searched.empty() ? "" : ", ", candidate.string());
  }
  if (const CatalogEntry* entry = find_catalog_entry(name_or_path); entry != nullptr) {
    throw IoError(name_or_path, 0,
                  entry->refusal.empty()
                      ? detail::concat("dataset not found; searched ", searched, ". Fetch it with: sgnn_data fetch ",
                                       name_or_path, " (or add --download to train_gcn / train_gat)")
                      : detail::concat("dataset not found; searched ", searched, "; ", entry->refusal));
  }
  throw IoError(name_or_path, 0,
                detail::concat("dataset not found; searched ", searched,
                               " ($SGNN_DATA, ./data, the user data folder, the bundled datasets). Put the "
                               "dataset in OGB's raw layout (<name>/raw/edge.csv.gz, num-node-list.csv.gz, ...) "
                               "in one of those folders, set SGNN_DATA to its parent, or pass the dataset's "
                               "path"));
}

}  // namespace sgnn::graph_io
