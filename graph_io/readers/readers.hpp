// Readers for single-file graphs (the OGB folder reader is ogb_reader.hpp).
// Both give a Dataset with edges only (no features, labels or splits) and
// throw IoError(file, line, reason) for every bad input; nothing partial is
// returned. Files may be gzip-compressed. Also the node lists that select
// nodes of a graph.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

// Edge list: one edge "src dst" or "src dst weight" per line, fields
// separated by spaces, tabs or commas; lines starting with '#' or '%' and
// blank lines are skipped. Every edge line has the same number of fields
// (2: unweighted, 3: the third is a finite float32 weight).
struct EdgeListOptions {
  bool one_based = false;  // ids start at 1 (id 0 is then an error)
  // Node count: -1 = largest id + 1; otherwise every id must be below it.
  int64_t num_nodes = -1;
};
Dataset read_edge_list(const std::filesystem::path& file, const EdgeListOptions& options);

// Matrix Market "coordinate" files, field real, integer or pattern, symmetry
// general or symmetric (stored lower triangle, mirrored on reading). Square
// matrices only. Entry (i, j) (1-based) is A[i, j], i.e. the edge j -> i
// (Adjacency's A[target, source] convention). array/complex/hermitian/
// skew-symmetric files are refused.
Dataset read_matrix_market(const std::filesystem::path& file);

// Node list: one node id per line (0-based, as in the dataset), blank lines
// and lines starting with '#' or '%' skipped. Every id must lie in
// [0, num_nodes) and appear once, and the file must list at least one.
// Returns the ids in file order.
std::vector<int32_t> read_node_list(const std::filesystem::path& file, int64_t num_nodes);

}  // namespace sgnn::graph_io
