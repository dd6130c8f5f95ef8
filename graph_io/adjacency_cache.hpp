// The adjacency cache file: what make_graph prepared (Adjacency and node
// order), stored as a section file (kind "adjacency-cache") keyed by a
// fingerprint of the inputs, so a second run skips preparation.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "graph_io/graph.hpp"

namespace sgnn::graph_io {

// Bump when the content or the preparation's semantics change: old files are then rebuilt.
inline constexpr uint32_t kAdjacencyCacheVersion = 1;

struct CachedAdjacency {
  Adjacency adjacency;  // host tensors after loading
  Tensor node_order;    // undefined without reordering
};

// Fingerprint of the edges (num_nodes, source, target, weight), the prepare
// options (not the device), the reordering and kAdjacencyCacheVersion.
uint64_t adjacency_fingerprint(const EdgeList& edges, const GraphOptions& options);

// <cache_dir>/adjacency-<16 hex digits>.sgnn
std::filesystem::path adjacency_cache_path(const std::filesystem::path& cache_dir, uint64_t fingerprint);

// Writes the cache atomically. Throws IoError when it cannot be written.
void store_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint, const CachedAdjacency& cached);

// The cached adjacency, or nullopt when the file is missing or unusable
// (corrupt, truncated, other version, other fingerprint, inconsistent
// sizes); `problem` then says why (empty when the file is simply missing).
std::optional<CachedAdjacency> load_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                                    std::string& problem);

}  // namespace sgnn::graph_io
