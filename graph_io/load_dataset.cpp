#include "graph_io/load_dataset.hpp"

#include <chrono>

#include "graph_io/dataset_locations.hpp"
#include "graph_io/ogb_reader.hpp"
#include "graph_io/readers.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& file, std::string_view extension) {
  std::string name = file.filename().string();
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  return name.size() > extension.size() && name.ends_with(extension);
}

Dataset load_path(const fs::path& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    if (!is_ogb_directory(path)) {
      throw IoError(path.string(), 0,
                    "is a folder but not an OGB raw-layout dataset (no raw/edge.csv.gz or raw/edge.csv)");
    }
    return read_ogb_dataset(path);
  }
  const auto started = std::chrono::steady_clock::now();
  Dataset dataset = has_extension(path, ".mtx") ? read_matrix_market(path) : read_edge_list(path, EdgeListOptions{});
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

bool looks_like_path(const std::string& text) {
  return text.find('/') != std::string::npos || text.starts_with(".") || text.find('.') != std::string::npos;
}

}  // namespace

Dataset load_dataset(const std::string& name_or_path) {
  if (name_or_path.empty()) throw IoError("<dataset>", 0, "empty dataset name");
  std::error_code error;
  if (fs::exists(name_or_path, error)) return load_path(name_or_path);
  if (looks_like_path(name_or_path)) throw IoError(name_or_path, 0, "no such file or folder");
  std::string searched;
  for (const fs::path& place : dataset_search_path()) {
    const fs::path candidate = place / name_or_path;
    if (fs::exists(candidate, error)) return load_path(candidate);
    searched += detail::concat(searched.empty() ? "" : ", ", candidate.string());
  }
  throw IoError(name_or_path, 0,
                detail::concat("dataset not found; searched ", searched,
                               " ($SGNN_DATA, ./data, the user data folder, the bundled datasets). Put the "
                               "dataset in OGB's raw layout (<name>/raw/edge.csv.gz, num-node-list.csv.gz, ...) "
                               "in one of those folders, set SGNN_DATA to its parent, or pass the dataset's "
                               "path"));
}

}  // namespace sgnn::graph_io
