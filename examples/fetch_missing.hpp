// --download of the training programs: when the dataset is a name sgnn_data
// can fetch and nothing by that name is found, runs `sgnn_data fetch NAME`
// (the program beside the running one, which inherits $SGNN_DATA_MIRROR and
// the terminal) before training. The training programs do not link the
// download code (libcurl, libarchive, OpenSSL: the fetch/ layer) themselves.
// Header-only so each example stays one .cpp file.
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph_io/dataset_catalog.hpp"
#include "graph_io/dataset_locations.hpp"

extern char** environ;

namespace sgnn::examples {

inline void fetch_if_missing(const std::string& name, bool quiet) {
  const graph_io::CatalogEntry* entry = graph_io::find_catalog_entry(name);
  std::error_code error;
  if (entry == nullptr || std::filesystem::exists(name, error)) return;
  for (const std::filesystem::path& place : graph_io::dataset_search_path()) {
    if (std::filesystem::exists(place / name, error)) return;
  }
  if (!entry->refusal.empty()) throw InvalidArgument(name + ": " + entry->refusal);
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path sgnn_data = program.parent_path() / "sgnn_data";
  if (error || !std::filesystem::exists(sgnn_data, error)) {
    throw InvalidArgument(detail::concat("--download: sgnn_data was not found beside this program (", sgnn_data.string(),
                                         "); fetch the dataset with `sgnn_data fetch ", name, "`"));
  }
  std::vector<std::string> arguments{sgnn_data.string(), "fetch", name};
  if (quiet) arguments.emplace_back("--quiet");
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (const int failure = posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), environ); failure != 0) {
    throw InvalidArgument(detail::concat("--download: could not start ", sgnn_data.string(), ": ", std::strerror(failure)));
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw InvalidArgument(detail::concat("--download: `sgnn_data fetch ", name, "` failed (see above)"));
  }
}

}  // namespace sgnn::examples
