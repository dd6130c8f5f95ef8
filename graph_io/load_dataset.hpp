// load_dataset: one entry point for every dataset a user can name or point at.
//
//   a directory            OGB raw layout (read_ogb_dataset)
//   a file *.mtx[.gz]      Matrix Market (read_matrix_market)
//   any other file         edge list (read_edge_list, default options)
//   a bare name ("cora")   <place>/<name> for place in dataset_search_path()
//                          (graph_io/dataset_locations.hpp; first found)
//
// Throws IoError when nothing is found: the message lists every place
// searched and how to obtain the data; reader errors pass through.
#pragma once

#include <filesystem>
#include <string>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

Dataset load_dataset(const std::string& name_or_path);

}  // namespace sgnn::graph_io
