// Reader for OGB's node-property raw layout (what ogbn-* downloads and the
// bundled datasets hold), gzip-compressed or plain CSV without headers:
//
//   <dir>/raw/num-node-list.csv[.gz]  one line: N (< 2^31)               required
//   <dir>/raw/edge.csv[.gz]           E lines "src,dst", ids in [0, N)   required
//   <dir>/raw/num-edge-list.csv[.gz]  one line: E                        optional, checked
//   <dir>/raw/node-feat.csv[.gz]      N lines of F finite numbers        optional
//   <dir>/raw/edge-feat.csv[.gz]      E lines of F_e finite numbers, line k
//                                     the features of edge k (edge.csv's
//                                     order): Dataset::edge_features      optional
//   <dir>/raw/node-label.csv[.gz]     N lines, one integer >= 0          optional
//   split files {train,valid,test}.csv[.gz] in <dir>/raw/split/, <dir>/split/
//   or <dir>/split/<one folder>/ (OGB's split/<type>/): ids in [0, N),
//   no repeats, disjoint                                                 optional
//
// `directory` may also be the raw/ folder itself. Every bad input (missing
// file, truncated gzip, empty file, non-numeric token, wrong column count,
// negative id, id >= N, id overflowing int32, counts contradicting
// num-node-list/num-edge-list, an edge-feat row count other than edge.csv's,
// NaN/Inf or non-numeric feature, ragged feature rows, negative
// label, split id out of range or repeated) throws IoError(file, line, reason);
// nothing partial is returned.
#pragma once

#include <filesystem>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

Dataset read_ogb_dataset(const std::filesystem::path& directory);

// One edge.csv[.gz] or node-feat.csv[.gz] on its own, checked as
// read_ogb_dataset checks it against `num_nodes` (the benchmarks time the two
// large files separately): edges int32 [E] each, features float32 [N, F].
EdgeList read_ogb_edges(const std::filesystem::path& file, int64_t num_nodes);
Tensor read_ogb_features(const std::filesystem::path& file, int64_t num_nodes);

// True when `directory` looks like the OGB raw layout (has raw/edge.csv[.gz]
// or edge.csv[.gz] itself).
bool is_ogb_directory(const std::filesystem::path& directory);

}  // namespace sgnn::graph_io
