// Fetches a dataset of the catalogue (or an OGB-layout zip at any URL) into
// <destination>/<name>, all or nothing.
//
//   1. Downloads each file into <destination>/.sgnn-fetch/<name>/download/
//      (resuming a part left by an interrupted run), checks size and SHA-256
//      where the catalogue knows them (a mismatch deletes the download).
//   2. Builds the dataset in .sgnn-fetch/<name>/staging: Planetoid files are
//      converted to the OGB raw layout; an OGB zip is unpacked (libarchive,
//      entries escaping the folder refused) and kept as OGB ships it
//      (raw/, split/<type>/, mapping/, ...); ogbn-mag keeps its paper graph.
//   3. Loads the staging copy with read_ogb_dataset and compares nodes, edges,
//      features, classes and split sizes with the catalogue's counts.
//   4. Writes FETCHED.txt (URL, size, SHA-256 and how each file was checked),
//      then renames the folder into place; with `replace`, an existing copy
//      is swapped out the same way. Downloads are deleted after success.
// A failure or interruption at any step leaves <destination>/<name> as it
// was (absent, or the old copy); verified downloads are kept for the next
// attempt. One fetch of a name at a time per destination (a lock file).
//
// Errors: InvalidArgument for a dataset the catalogue marks as not loadable
// (the message says why) or a bad name; IoError (file or URL, reason) for
// every download, unpack, layout, count or file-system failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "graph_io/dataset_catalog.hpp"
#include "fetch/download.hpp"

namespace sgnn::graph_io {

struct FetchOptions {
  std::filesystem::path destination;  // parent folder of the dataset (created when missing)
  // Base URL replacing the published one; a mirror holds the same file names
  // (Planetoid: ind.<name>.<part>; OGB: <archive>.zip). Empty: $SGNN_DATA_MIRROR
  // when set, else the published location.
  std::string mirror;
  bool replace = false;  // fetch again over an existing copy
  // Progress of each download: the file's name and its progress.
  std::function<void(const std::string& file, const DownloadProgress&)> on_progress;
  // One line per step ("downloading ...", "checking ...").
  std::function<void(const std::string& message)> on_step;
};

struct FetchResult {
  std::filesystem::path folder;  // <destination>/<name>
  bool already_present = false;  // nothing was done: the folder existed and replace was off
  int64_t downloaded_bytes = 0;  // received by this run
};

FetchResult fetch_dataset(const CatalogEntry& entry, const FetchOptions& options);

// An OGB node-property zip at `url` (not in the catalogue), stored as `name`:
// checked by the zip's CRCs and by loading it; the zip's raw/ may be at its
// top or inside its one top-level folder.
FetchResult fetch_ogb_zip(const std::string& name, const std::string& url, const FetchOptions& options);

}  // namespace sgnn::graph_io
