// sgnn_data: the datasets found on this machine, the ones it can fetch, and
// fetching them (fetch/fetch_dataset.hpp; docs/datasets.md).
//
//   sgnn_data list
//   sgnn_data fetch cora citeseer pubmed ogbn-arxiv [--dir DIR] [--mirror URL] [--force] [--quiet]
//   sgnn_data fetch my-graph --url https://example.org/my-graph.zip      (any OGB-layout zip)
//
// Datasets go to the user data folder (~/.local/share/sparsegnn, where the
// programs look for a named dataset) unless --dir says otherwise.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "download_cli.hpp"
#include "graph_io/dataset_catalog.hpp"
#include "graph_io/dataset_locations.hpp"
#include "fetch/download_progress.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/readers/planetoid_reader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sgnn;

int64_t folder_bytes(const fs::path& folder) {
  int64_t total = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) total += static_cast<int64_t>(it->file_size(error));
  }
  return total;
}

std::string download_size(const graph_io::CatalogEntry& entry) {
  if (entry.download_bytes < 0) return "unknown";
  return (entry.download_bytes_exact ? "" : "~") + graph_io::format_bytes(entry.download_bytes);
}

std::string check_text(const graph_io::CatalogEntry& entry) {
  if (!entry.refusal.empty()) return entry.refusal;
  bool verified = true;
  for (const graph_io::RemoteFile& file : entry.files) verified = verified && file.verified();
  const std::string checked = verified ? "size and sha256 checked" : "unverified (no published sha256): ";
  if (verified) return checked;
  return checked + (entry.format == graph_io::CatalogFormat::Planetoid ? "counts checked when loaded"
                                                                          : "zip CRCs and counts checked");
}

void list_partial_downloads(const fs::path& destination) {
  std::error_code error;
  const fs::path work = destination / ".sgnn-fetch";
  for (const fs::directory_entry& dataset : fs::directory_iterator(work, error)) {
    if (!dataset.is_directory(error)) continue;
    const int64_t bytes = folder_bytes(dataset.path() / "download");
    if (bytes == 0) continue;
    const std::string name = dataset.path().filename().string();
    std::printf("  %-16s %s downloaded by an unfinished fetch (sgnn_data fetch %s goes on from there)\n",
                name.c_str(), graph_io::format_bytes(bytes).c_str(), name.c_str());
  }
}

int list(const std::string& dir) {
  std::printf("Local datasets (a bare name is looked up in these folders, in this order):\n");
  for (const fs::path& place : graph_io::dataset_search_path()) {
    std::printf("  %s\n", place.string().c_str());
    std::vector<std::pair<std::string, int64_t>> found;
    std::error_code error;
    for (const fs::directory_entry& item : fs::directory_iterator(place, error)) {
      const std::string name = item.path().filename().string();
      if (name.starts_with(".") || !item.is_directory(error)) continue;
      if (!graph_io::is_ogb_directory(item.path()) && !graph_io::is_planetoid_folder(item.path())) continue;
      found.emplace_back(name, folder_bytes(item.path()));
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) std::printf("    (none)\n");
    for (const auto& [name, bytes] : found) {
      std::printf("    %-16s %s\n", name.c_str(), graph_io::format_bytes(bytes).c_str());
    }
  }
  const fs::path destination = dir.empty() ? examples::default_fetch_destination() : fs::path(dir);
  std::printf("\nDatasets sgnn_data can fetch (into %s):\n", destination.string().c_str());
  std::printf("  %-16s %-11s %s\n", "name", "download", "checks");
  for (const graph_io::CatalogEntry& entry : graph_io::dataset_catalog()) {
    std::printf("  %-16s %-11s %s\n", entry.name.c_str(), download_size(entry).c_str(), check_text(entry).c_str());
  }
  list_partial_downloads(destination);
  return 0;
}

int fetch(const std::vector<std::string>& names, const std::string& dir, const std::string& mirror,
          const std::string& url, bool force, bool quiet) {
  // Every name is checked before anything is downloaded.
  std::vector<graph_io::CatalogEntry> entries;
  if (!url.empty()) {
    if (names.size() != 1) throw InvalidArgument("--url fetches one dataset: give exactly one NAME for it");
    graph_io::CatalogEntry entry;
    entry.name = names.front();
    entries.push_back(entry);
  } else {
    for (const std::string& name : names) {
      const graph_io::CatalogEntry* entry = graph_io::find_catalog_entry(name);
      if (entry == nullptr) {
        std::string known;
        for (const graph_io::CatalogEntry& e : graph_io::dataset_catalog()) {
          if (e.refusal.empty()) known += (known.empty() ? "" : ", ") + e.name;
        }
        throw InvalidArgument("unknown dataset \"" + name + "\"; sgnn_data fetches " + known +
                              " (or any OGB-layout zip with --url URL NAME)");
      }
      if (!entry->refusal.empty()) throw InvalidArgument(name + ": " + entry->refusal);
      entries.push_back(*entry);
    }
  }
  graph_io::FetchOptions options;
  options.destination = dir.empty() ? examples::default_fetch_destination() : fs::path(dir);
  options.mirror = mirror;
  options.replace = force;
  int failures = 0;
  for (const graph_io::CatalogEntry& entry : entries) {
    try {
      const graph_io::FetchResult result = examples::fetch_with_progress("sgnn_data", entry, options, quiet, url);
      if (result.already_present) {
        std::printf("%s: already present in %s (--force fetches it again)\n", entry.name.c_str(),
                    result.folder.string().c_str());
      } else {
        std::printf("%s: ready in %s (%s downloaded)\n", entry.name.c_str(), result.folder.string().c_str(),
                    graph_io::format_bytes(result.downloaded_bytes).c_str());
      }
    } catch (const std::exception& error) {
      std::fprintf(stderr, "sgnn_data: %s: error: %s\n", entry.name.c_str(), error.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"List the datasets found on this machine and fetch more (Planetoid, OGB node property)", "sgnn_data"};
  app.require_subcommand(1);
  std::string dir;
  CLI::App* list_command = app.add_subcommand("list", "local datasets with their sizes, and the fetchable ones");
  list_command->add_option("--dir", dir, "the folder fetched datasets go to (default: the user data folder)");

  CLI::App* fetch_command = app.add_subcommand("fetch", "download datasets, check them and put them in place");
  std::vector<std::string> names;
  std::string mirror;
  std::string url;
  bool force = false;
  bool quiet = false;
  fetch_command->add_option("names", names, "catalogue names (sgnn_data list), or one new name with --url")
      ->required();
  fetch_command->add_option("--dir", dir,
                            "put the datasets in DIR/<name> (default: $XDG_DATA_HOME/sparsegnn or "
                            "~/.local/share/sparsegnn, where the programs look)");
  CLI::Option* mirror_option = fetch_command->add_option("--mirror", mirror,
                            "base URL holding the same file names as the published location (Planetoid: "
                            "ind.<name>.<part>; OGB: <archive>.zip); default $SGNN_DATA_MIRROR, else the "
                            "published location");
  fetch_command->add_option("--url", url, "fetch the OGB node-property zip at this URL and store it as NAME")
      ->excludes(mirror_option);
  fetch_command->add_flag("--force", force, "fetch again over a dataset already there (replaced atomically)");
  fetch_command->add_flag("--quiet", quiet, "no progress, only the result lines");
  CLI11_PARSE(app, argc, argv);

  try {
    if (list_command->parsed()) return list(dir);
    return fetch(names, dir, mirror, url, force, quiet);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sgnn_data: error: %s\n", error.what());
    return 1;
  }
}
