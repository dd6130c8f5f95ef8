// load_dataset: one entry point for every dataset a user can name or point at.
//
//   a directory            OGB raw layout (read_ogb_dataset), else one set of
//                          Planetoid files ind.<name>.* (read_planetoid)
//   a file *.mtx[.gz]      Matrix Market (read_matrix_market)
//   any other file         edge list (read_edge_list, default options)
//   a bare name ("cora")   <place>/<name> for place in dataset_search_path()
//                          (graph_io/dataset_locations.hpp; first found)
//
// The first load of a dataset parses its files and writes its processed file
// (graph_io/processed_dataset.hpp); later loads map that file instead. A
// processed file that is stale or damaged is reported on stderr (one line)
// and rebuilt; one that cannot be written is reported and skipped.
//
// Throws IoError when nothing is found: the message lists every place
// searched and how to obtain the data; reader errors pass through.
#pragma once

#include <filesystem>
#include <string>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

struct LoadOptions {
  bool processed = true;       // map the processed file, or parse and write it; false: parse only
  bool rebuild = false;        // parse and rewrite the processed file even when it looks valid
  // Leave the checksums of the large mapped sections (edges, features) to
  // the caller (Dataset::unchecked), who folds them into a pass it makes
  // anyway (make_graph: the upload) or skips them when it never reads them.
  bool defer_checks = false;
  // Where the processed file goes when the dataset's folder is not writable,
  // and always for a bundled dataset: an install prefix is never written
  // into ("" = user_cache_folder()).
  std::string cache_dir;
  // Write the processed file after a parse on a thread of its own, so that a
  // first run does not wait for it (Dataset::load.pending_store); a failure
  // is reported on stderr then, and the next load parses again.
  bool store_in_background = false;
};

Dataset load_dataset(const std::string& name_or_path, const LoadOptions& options = {});

}  // namespace sgnn::graph_io
