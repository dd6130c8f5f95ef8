// Small OGB-layout datasets for tests that run whole experiments: the
// symmetric SBM graphs of graph_io::generate_synthetic_dataset, and the
// edge-feature graphs of graph_io::generate_edge_feature_dataset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "graph_io/generators/synthetic_dataset.hpp"

namespace sgnn::testing {

// A symmetric SBM dataset: `edges` draws among `nodes` nodes (both
// directions stored), `features` features, `classes` classes, from `seed`.
graph_io::Dataset symmetric_synthetic(int64_t nodes, int64_t edges, int64_t features, uint64_t seed,
                                      int64_t classes = graph_io::SyntheticOptions{}.num_classes);

// The same dataset written in OGB raw layout to folder / name; returns that
// directory as a string (what ExperimentOptions::dataset takes).
std::string write_symmetric_synthetic(const std::filesystem::path& folder, const std::string& name, int64_t nodes,
                                      int64_t edges, int64_t features, uint64_t seed);

// An edge-feature dataset of `nodes` nodes (its other options the
// defaults) from `seed`, written in OGB raw layout (with edge-feat) to
// folder / name; returns that directory.
std::string write_edge_feature_synthetic(const std::filesystem::path& folder, const std::string& name, int64_t nodes,
                                         uint64_t seed);

}  // namespace sgnn::testing
