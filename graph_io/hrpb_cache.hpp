// HRPB cache: the HrpbAdjacency of a prepared graph stored next to its
// adjacency cache file (<adjacency cache>.hrpb), so the HRPB layout is built
// once and never again while the inputs, options and GPU size are unchanged.
//
// A section file (graph_io/section_file.hpp: versioned, CRC-checked, written
// atomically) whose fingerprint covers the adjacency cache file's name (hence
// the edges and preparation options) and the HrpbOptions. A missing, stale,
// corrupt or truncated file is reported by load (nullopt) and rebuilt by the
// caller, never trusted. A symmetric matrix's single layout (HrpbAdjacency
// whose directions share their tensors) is stored once and loads as one.
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

// Writes `hrpb` (any device) atomically, with the milliseconds its build took
// (0: unknown). Throws IoError when it cannot.
void store_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint, const HrpbAdjacency& hrpb,
                      double build_ms = 0);

// The cached layout as host tensors, or nullopt (with the reason in `why`)
// when the file is absent, unreadable, damaged, was made for other inputs,
// or holds layouts that fail hrpb_structure_problem (core/hrpb.hpp).
std::optional<HrpbAdjacency> load_hrpb_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                             std::string& why);

struct HrpbAttachment {
  double milliseconds = 0;  // loading or building (and storing) the layout
  bool cache_hit = false;
  bool built = false;       // built now (not loaded, not there already)
  double build_ms = 0;      // of which the build
  std::string note;         // a cache file dropped or not written, and why ("" when none)
};

struct HrpbCachePolicy {
  // Store a layout built on a miss. False: build only, because whether a
  // kernel will use it is not settled yet; store_hrpb_cache_if_faster may
  // store it later.
  bool store_on_miss = true;
};

// attach_hrpb (graph_io/hrpb_builder.hpp) through the cache next to
// `adjacency_cache_file` (no cache when it is empty): loads the layout when
// the cache is valid, else builds it and, per `policy`, stores it (a store
// failure is reported on stderr; training goes on). A cache whose load took
// longer than the build it replaced (recorded in the file) is deleted and
// the attachment's note says so. options.concurrent_blocks must be resolved
// (non-zero) so that the fingerprint names the schedule.
HrpbAttachment attach_hrpb_cached(Adjacency& adjacency, SpmmFormat format, const HrpbOptions& options,
                                  const std::filesystem::path& adjacency_cache_file, HrpbCachePolicy policy = {});

// Stores adjacency.hrpb (built in `build_ms`) next to `adjacency_cache_file`
// only when reading it back would be faster than building it again: its
// bytes at `read_bytes_per_ms` (the rate measured loading the adjacency
// cache in this run; <= 0: unknown, then nothing is stored yet). Returns
// whether it stored; `note` says why not.
bool store_hrpb_cache_if_faster(const Adjacency& adjacency, const HrpbOptions& options,
                                const std::filesystem::path& adjacency_cache_file, double build_ms,
                                double read_bytes_per_ms, std::string& note);

}  // namespace sgnn::graph_io
