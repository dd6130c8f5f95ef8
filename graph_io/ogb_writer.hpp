// Writes a Dataset in OGB's node-property raw layout (the layout
// read_ogb_dataset and bench/pyg_train.py read):
//   <dir>/raw/{num-node-list,num-edge-list,edge,node-feat,edge-feat,node-label}.csv[.gz]
//   <dir>/raw/split/{train,valid,test}.csv[.gz]
// Files for undefined tensors are not written. Numbers are written with
// std::to_chars (shortest round-trip form), in parallel blocks.
#pragma once

#include <filesystem>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

struct OgbWriteOptions {
  bool gzip = true;  // .csv.gz (compression level 1: large files stay fast) or plain .csv
};

// Throws InvalidArgument for a weighted edge list (the raw layout has no edge
// weights) or inconsistent shapes, IoError when a file cannot be written.
void write_ogb_dataset(const Dataset& dataset, const std::filesystem::path& directory, const OgbWriteOptions& options = {});

}  // namespace sgnn::graph_io
