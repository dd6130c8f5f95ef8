// The large synthetic graphs the benchmarks name, defined once: sgnn_gen
// --preset, bench_sparse, bench/compare_pyg.py and scripts/gpu-check.sh all
// use these, so "Reddit-scale" is the same graph everywhere.
//
//   reddit-scale    R-MAT, 232,965 nodes (Reddit's), 85M undirected edges
//                   drawn: 109.3M directed edges after repeats are removed
//                   (Reddit: 114.6M), 602 features, 41 classes
//   products-scale  R-MAT, 2,449,029 nodes (ogbn-products'), 61M drawn:
//                   116.9M directed edges (ogbn-products: 123.7M), 100
//                   features, 47 classes
//
// Presets too large for an edge list are generated straight into the
// processed dataset format (graph_io/generators/synthetic_papers.hpp):
//   papers100m-scale  111,059,956 nodes (ogbn-papers100M's), 1.6B undirected
//                     edges drawn (about 3.2B directed entries), 128 BF16
//                     features, 172 classes, 1.2M training nodes
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph_io/generators/synthetic_dataset.hpp"

namespace sgnn::graph_io {

// The options of preset `name`. Throws InvalidArgument naming the known presets otherwise.
SyntheticOptions synthetic_preset(std::string_view name);

// The preset names, in the order above.
std::vector<std::string> synthetic_preset_names();
// The presets written into the processed format: {"papers100m-scale"}.
std::vector<std::string> processed_preset_names();

}  // namespace sgnn::graph_io
