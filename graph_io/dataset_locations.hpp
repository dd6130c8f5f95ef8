// Where named datasets live. A bare name ("cora") is searched, in order, in
//
//   1. $SGNN_DATA                      (a user's own collection, if set)
//   2. ./data                          (relative to the working directory)
//   3. user_data_folder()              ($XDG_DATA_HOME/sparsegnn, else
//                                       ~/.local/share/sparsegnn: where
//                                       sgnn_data fetch puts downloads)
//   4. bundled_dataset_folder()        (Cora and Citeseer, shipped with the
//                                       library: <prefix>/share/sparsegnn/datasets)
//
// No path of the machine that built the library is compiled in: the bundled
// folder is found relative to the running program and to the library file.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace sgnn::graph_io {

// $XDG_DATA_HOME/sparsegnn when XDG_DATA_HOME is set and absolute, else
// $HOME/.local/share/sparsegnn. nullopt when neither variable gives a folder.
// The folder need not exist.
std::optional<std::filesystem::path> user_data_folder();

// $XDG_CACHE_HOME/sparsegnn when set and absolute, else
// $HOME/.cache/sparsegnn: processed files of datasets whose own folder is
// not writable. nullopt when neither variable gives a folder.
std::optional<std::filesystem::path> user_cache_folder();

// The first existing folder among <dir>/../share/sparsegnn/datasets for <dir>
// the running program's folder (an install's bin/, or a build tree's
// examples/, tests/, bench/) and the folder of the file holding this library
// (an install's lib/ when linked as a shared library). nullopt when none exists.
std::optional<std::filesystem::path> bundled_dataset_folder();

// The folders a bare dataset name is searched in, in the order above
// (missing ones are left out of the list except ./data).
std::vector<std::filesystem::path> dataset_search_path();

}  // namespace sgnn::graph_io
