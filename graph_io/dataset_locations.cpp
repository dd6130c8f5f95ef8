#include "graph_io/dataset_locations.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

std::optional<fs::path> absolute_variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  fs::path path(value);
  if (!path.is_absolute()) return std::nullopt;  // the XDG rule: relative paths are invalid and ignored
  return path;
}

// <folder>/../share/sparsegnn/datasets when it exists.
std::optional<fs::path> datasets_beside(const fs::path& folder) {
  std::error_code error;
  const fs::path candidate = folder.parent_path() / "share" / "sparsegnn" / "datasets";
  if (!fs::is_directory(candidate, error)) return std::nullopt;
  return fs::weakly_canonical(candidate, error);
}

// The file this function's code was loaded from: the shared library, or the
// program itself when the library is linked statically.
std::optional<fs::path> library_file() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&library_file), &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code error;
  const fs::path file = fs::canonical(info.dli_fname, error);
  if (error) return std::nullopt;
  return file;
}

}  // namespace

std::optional<fs::path> user_data_folder() {
  if (std::optional<fs::path> xdg = absolute_variable("XDG_DATA_HOME")) return *xdg / "sparsegnn";
  if (std::optional<fs::path> home = absolute_variable("HOME")) return *home / ".local" / "share" / "sparsegnn";
  return std::nullopt;
}

std::optional<fs::path> user_cache_folder() {
  if (std::optional<fs::path> xdg = absolute_variable("XDG_CACHE_HOME")) return *xdg / "sparsegnn";
  if (std::optional<fs::path> home = absolute_variable("HOME")) return *home / ".cache" / "sparsegnn";
  return std::nullopt;
}

std::optional<fs::path> bundled_dataset_folder() {
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    if (std::optional<fs::path> found = datasets_beside(program.parent_path())) return found;
  }
  if (std::optional<fs::path> library = library_file()) {
    if (std::optional<fs::path> found = datasets_beside(library->parent_path())) return found;
  }
  return std::nullopt;
}

std::vector<fs::path> dataset_search_path() {
  std::vector<fs::path> places;
  if (const char* variable = std::getenv("SGNN_DATA"); variable != nullptr && *variable != '\0') {
    places.emplace_back(variable);
  }
  places.emplace_back("data");
  if (std::optional<fs::path> user = user_data_folder()) places.push_back(*user);
  if (std::optional<fs::path> bundled = bundled_dataset_folder()) places.push_back(*bundled);
  return places;
}

}  // namespace sgnn::graph_io
