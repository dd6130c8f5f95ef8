// Reader for the original Planetoid files (kimiyoung/planetoid: Cora,
// Citeseer, Pubmed), giving exactly what PyTorch Geometric's Planetoid(root,
// name)[0] holds (torch_geometric/io/planetoid.py, read_planetoid_data):
//
//   <folder>/ind.<name>.x, .tx, .allx   scipy.sparse csr_matrix (or 2-D ndarray) features
//                                       of the train, test and all non-test nodes
//   <folder>/ind.<name>.y, .ty, .ally   2-D numpy arrays of one-hot labels (same rows)
//   <folder>/ind.<name>.graph           dict (a collections.defaultdict) node -> neighbour list
//   <folder>/ind.<name>.test.index      text, one test node id per line
//   (Python 2 pickles; graph_io/readers/pickle.hpp)
//
//   nodes     N = allx rows + (max - min + 1 of test.index); the test ids must
//             start right after allx's rows, and ids missing from that range
//             (Citeseer's isolated nodes) get zero features and label 0
//   features  [N, F] float32, raw: allx rows in order, tx row j at node
//             test_index[j] (duplicates in a csr row summed as numpy does)
//   labels    [N] int32, the first largest entry of each label row (argmax)
//   edges     every key -> neighbour pair of the graph, self loops removed,
//             duplicates merged, sorted by target then source (PyG's
//             coalesce(sort_by_row=False)); not symmetrised
//   splits    train = [0, rows of y), valid = the next 500 nodes, test =
//             test.index sorted; they must not overlap
//
// Every bad input (a missing file, a pickle that is truncated, uses an opcode
// outside the subset or breaks pickle::Limits, a wrong type such as `x` not a
// csr_matrix or `y` not a 2-D numeric array, row counts or widths that
// disagree between files, a test id out of place or repeated, a graph id
// outside [0, N), NaN/Inf features, more than max_feature_bytes of features)
// throws IoError naming the file and the reason; nothing partial is returned.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "graph_io/dataset.hpp"
#include "graph_io/readers/pickle.hpp"

namespace sgnn::graph_io {

struct PlanetoidLimits {
  pickle::Limits pickle;                         // for each pickled file
  int64_t max_feature_bytes = int64_t{8} << 30;  // N * max(F, 1) * 4 bytes of dense features
};

Dataset read_planetoid(const std::filesystem::path& folder, const std::string& name,
                       const PlanetoidLimits& limits = {});

// True when `folder` holds exactly one complete set of ind.<name>.* files
// (all eight parts); `name` (if given) receives its name.
bool is_planetoid_folder(const std::filesystem::path& folder, std::string* name = nullptr);

}  // namespace sgnn::graph_io
