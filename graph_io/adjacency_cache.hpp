// The adjacency cache file: what make_graph prepared, stored as a section
// file (kind "adjacency-cache") keyed by a fingerprint of the inputs, so a
// second run skips preparation.
//
// Always stored: what is costly to recompute, the sorted, merged CSR pattern
// (the sort of all edges, duplicates, symmetrisation, self loops), the node
// order of a reordering, the values when they cannot be derived from the
// pattern (weighted edges), and for a graph that carries edge features the
// entries' edges (prepare_adjacency's entry_edges: the features themselves
// are gathered from the dataset by them on every load, so a cache hit gives
// the dataset's current features in the entries' order). On a GPU, a load derives the rest (the
// transpose, its edge map, the row orders, the normalised values) again by
// prepare's own code (adjacency_from_pattern), bitwise equal to a fresh
// prepare_adjacency; that is a few tens of ms at 10^8 edges, far less than
// reading them from disk.
// A host adjacency also stores those derived arrays, and a CPU load whose
// options ask for the same ones (edge map, symmetric scale) maps them from
// the file instead (zero copy): on the CPU deriving them costs seconds at
// 10^7 entries, mapping them almost nothing. What indexes memory is checked
// against the pattern (row orders and edge maps exactly, a stored transpose
// as a sorted pattern); values, and a symmetric pattern's claim that Aᵀ is
// A, are taken as their checksums vouch for them, as stored values always
// were. A CPU load of a file written from a GPU derives them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "graph_io/dataset.hpp"
#include "graph_io/graph_options.hpp"

namespace sgnn::graph_io {

// Bump when the content or the preparation's semantics change: old files are then rebuilt.
// 2: pattern (+ values only when not derivable) instead of every prepared tensor.
// 3: + the derived arrays of a host adjacency, which CPU loads map.
inline constexpr uint32_t kAdjacencyCacheVersion = 3;

struct CachedAdjacency {
  Adjacency adjacency;  // any device when storing; on the requested device after loading
  Tensor node_order;    // host; undefined without reordering
  // How adjacency.values were made. With unweighted edges and a normalisation,
  // the values are a function of the pattern and are derived on load instead
  // of stored. The defaults (weighted, None) store the values as they are,
  // which is right for any adjacency.
  bool weighted_edges = true;
  Normalization normalization = Normalization::None;
  // int64 [nnz]: the input edge of each entry (-1: an added loop), in
  // [-1, edge_count); undefined unless the graph carries edge features.
  // Host after loading (checked there), any device when storing.
  Tensor entry_edges;
  int64_t edge_count = 0;  // the input edges entry_edges index
};

// Fingerprint of the edges (num_nodes, source, target, weight), the prepare
// options (not the device), the reordering, whether entry edges are kept
// (options.edge_features on a dataset with edge features) and kAdjacencyCacheVersion.
uint64_t adjacency_fingerprint(const EdgeList& edges, const GraphOptions& options, bool entry_edges = false);

// The key make_graph uses: the dataset's stored fingerprint (a hash of its
// files, kept in its processed file) with the options, so a cache hit hashes
// nothing; the edges' fingerprint above when the dataset has none. The edge
// features' values are not in it (the cache holds their order, not them).
uint64_t adjacency_fingerprint(const Dataset& dataset, const GraphOptions& options);

// The entry count recorded in a valid-looking cache file for `fingerprint`
// (its header only is read), or nullopt.
std::optional<int64_t> cached_adjacency_entries(const std::filesystem::path& file, uint64_t fingerprint);

// <cache_dir>/adjacency-<16 hex digits>.sgnn
std::filesystem::path adjacency_cache_path(const std::filesystem::path& cache_dir, uint64_t fingerprint);

// The cache make_graph uses for `dataset` prepared with `options` in
// `cache_dir`: its file and the fingerprint it must hold.
struct AdjacencyCacheEntry {
  std::filesystem::path file;
  uint64_t fingerprint = 0;
};
AdjacencyCacheEntry adjacency_cache_entry(const std::filesystem::path& cache_dir, const Dataset& dataset,
                                          const GraphOptions& options);

// The entry count that cache records, or nullopt when it is missing or does
// not match (its header only is read): what a memory check counts with
// before make_graph runs.
std::optional<int64_t> cached_adjacency_entries(const std::filesystem::path& cache_dir, const Dataset& dataset,
                                                const GraphOptions& options);

// Writes the cache atomically. Throws IoError when it cannot be written and
// InvalidArgument when `cached` says its values are derived but has none.
void store_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint, const CachedAdjacency& cached);

// The cached adjacency on `device`, or nullopt when the file is missing or
// unusable (corrupt, truncated, other version, other fingerprint, sections
// that do not fit together, a pattern that is not sorted and in range,
// derived arrays that are not those of the pattern, entry edges out of
// their range);
// `problem` then says why (empty when the file is simply missing). Device
// errors while deriving (e.g. out of memory) propagate as exceptions.
// Of `derive`, edge_map and symmetric_scale say what to derive (the
// normalisation comes from the file, the device is `device`).
std::optional<CachedAdjacency> load_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                                    std::string& problem, Device device = Device::cpu(),
                                                    const PrepareOptions& derive = {});

}  // namespace sgnn::graph_io
