// HRPB cache: the HrpbAdjacency of a prepared graph stored next to its
// adjacency cache file (<adjacency cache>.hrpb), so the HRPB layout is built
// once and never again while the inputs, options and GPU size are unchanged.
//
// A section file (graph_io/section_file.hpp: versioned, CRC-checked, written
// atomically) whose fingerprint covers the adjacency cache file's name (hence
// the edges and preparation options) and the HrpbOptions. A missing, stale,
// corrupt or truncated file is reported by load (nullopt) and rebuilt by the
// caller, never trusted.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/hrpb.hpp"
#include "graph_io/hrpb_builder.hpp"

namespace sgnn::graph_io {

// The fingerprint an HRPB cache file must carry for `adjacency_cache_file`
// built with `options` (concurrent_blocks resolved).
uint64_t hrpb_cache_fingerprint(const std::filesystem::path& adjacency_cache_file, const HrpbOptions& options);

// Writes `hrpb` (any device) atomically. Throws IoError when it cannot.
void store_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint, const HrpbAdjacency& hrpb);

// The cached layout as host tensors, or nullopt (with the reason in `why`)
// when the file is absent, unreadable, damaged, was made for other inputs,
// or holds layouts that fail hrpb_structure_problem (core/hrpb.hpp).
std::optional<HrpbAdjacency> load_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                             std::string& why);

struct HrpbAttachment {
  double milliseconds = 0;  // loading or building (and storing) the layout
  bool cache_hit = false;
};

// attach_hrpb (graph_io/hrpb_builder.hpp) through the cache next to
// `adjacency_cache_file` (no cache when it is empty): loads the layout when
// the cache is valid, else builds it and stores it (a store failure is
// reported on stderr; training goes on). options.concurrent_blocks must be
// resolved (non-zero) so that the fingerprint names the schedule.
HrpbAttachment attach_hrpb_cached(Adjacency& adjacency, SpmmFormat format, const HrpbOptions& options,
                                  const std::filesystem::path& adjacency_cache_file);

}  // namespace sgnn::graph_io
