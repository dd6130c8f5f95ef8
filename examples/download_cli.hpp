// Fetching a dataset from sgnn_data: graph_io::fetch_dataset (fetch/) with
// each download's progress on stderr (a line
// rewritten in place on a terminal, a line per 10% when piped) and its steps
// as "<program>: <name>: <step>" lines. Header-only so each example stays one
// .cpp file.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "graph_io/dataset_catalog.hpp"
#include "graph_io/dataset_locations.hpp"
#include "fetch/download_progress.hpp"
#include "fetch/fetch_dataset.hpp"
#include "training/output/progress.hpp"

namespace sgnn::examples {

// Where fetched datasets go unless told otherwise: the user data folder
// (searched by load_dataset). InvalidArgument when no folder is known.
inline std::filesystem::path default_fetch_destination() {
  if (std::optional<std::filesystem::path> folder = graph_io::user_data_folder()) return *folder;
  throw InvalidArgument("no user data folder: neither XDG_DATA_HOME nor HOME is set; pass --dir");
}

// Fetches `entry` (or, with `url`, the OGB zip there under entry.name) with
// `options` (destination, mirror, replace), printing progress unless `quiet`.
inline graph_io::FetchResult fetch_with_progress(const std::string& program, const graph_io::CatalogEntry& entry,
                                                 graph_io::FetchOptions options, bool quiet,
                                                 const std::string& url = "") {
  using training::ProgressLine;
  ProgressLine line(stderr, quiet ? ProgressLine::Mode::Quiet : ProgressLine::Mode::Auto);
  const bool terminal = line.mode() == ProgressLine::Mode::Terminal;
  std::string current_file;
  graph_io::DownloadProgressThrottle throttle(terminal);
  if (!quiet) {
    options.on_step = [&](const std::string& step) {
      line.finish();
      std::fprintf(stderr, "%s: %s: %s\n", program.c_str(), entry.name.c_str(), step.c_str());
    };
    options.on_progress = [&](const std::string& file, const graph_io::DownloadProgress& progress) {
      if (file != current_file) {  // each file gets its own 10% steps
        current_file = file;
        throttle = graph_io::DownloadProgressThrottle(terminal);
      }
      if (throttle.should_print(progress)) line.update("  " + graph_io::format_download_progress(file, progress));
    };
    if (!entry.warning.empty()) {
      std::fprintf(stderr, "%s: %s: note: %s\n", program.c_str(), entry.name.c_str(), entry.warning.c_str());
    }
  }
  graph_io::FetchResult result =
      url.empty() ? graph_io::fetch_dataset(entry, options) : graph_io::fetch_ogb_zip(entry.name, url, options);
  line.finish();
  return result;
}

}  // namespace sgnn::examples
