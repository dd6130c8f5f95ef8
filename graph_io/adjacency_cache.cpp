#include "graph_io/adjacency_cache.hpp"

#include <cstdio>
#include <vector>

#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/fingerprint.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

constexpr const char* kKind = "adjacency-cache";

// Metadata "values": how the loader gets adjacency.values.
constexpr const char* kValuesNone = "none";            // no values
constexpr const char* kValuesStored = "stored";        // section "values", as they are
constexpr const char* kValuesSymmetric = "symmetric";  // derived: D^-1/2 A D^-1/2 of the pattern
constexpr const char* kValuesRow = "row";              // derived: D^-1 A of the pattern

const char* values_mode(const CachedAdjacency& cached) {
  if (cached.adjacency.symmetric_scale.defined()) return kValuesSymmetric;  // derived from the pattern alone
  if (!cached.adjacency.values.defined()) return kValuesNone;
  if (cached.weighted_edges) return kValuesStored;
  switch (cached.normalization) {
    case Normalization::Symmetric: return kValuesSymmetric;
    case Normalization::Row: return kValuesRow;
    case Normalization::None: break;
  }
  return kValuesStored;
}

// Every id in [0, n) exactly once (n = numel).
bool is_permutation(const Tensor& order) {
  const auto n = static_cast<std::size_t>(order.numel());
  std::vector<unsigned char> seen(n, 0);
  const int32_t* ids = order.data<int32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= n || seen[static_cast<std::size_t>(ids[i])] != 0) return false;
    seen[static_cast<std::size_t>(ids[i])] = 1;
  }
  return true;
}

int64_t parse_count(const SectionFile& file, const std::string& key) {
  const std::string& text = file.meta(key);
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw IoError(file.source, 0, detail::concat("metadata ", key, "=\"", text, "\" is not a count"));
}

// The sections' dtypes and shapes against the metadata, before any payload is touched.
void check_section_shapes(const SectionFile& contents, const Csr& pattern, bool stored_values) {
  const Tensor& indptr = contents.at("csr.indptr");
  const Tensor& indices = contents.at("csr.indices");
  const bool fits = pattern.num_rows < (int64_t{1} << 31) && indptr.dtype() == csr_offset_dtype(pattern.nnz) &&
                    indptr.shape() == Shape{pattern.num_rows + 1} && indices.dtype() == DType::Int32 &&
                    indices.shape() == Shape{pattern.nnz};
  if (!fits) throw IoError(contents.source, 0, "the CSR pattern's sections do not fit together (shapes or dtypes)");
  if (stored_values) {
    const Tensor& values = contents.at("values");
    if (values.dtype() != DType::Float32 || values.shape() != Shape{pattern.nnz}) {
      throw IoError(contents.source, 0, "section \"values\" does not fit the pattern (shape or dtype)");
    }
  }
}

uint64_t options_fingerprint(uint64_t state, const GraphOptions& options) {
  state = hash_combine(state, options.prepare.symmetrize ? 1 : 0);
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.self_loops));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.duplicates));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.normalization));
  state = hash_combine(state, static_cast<uint64_t>(options.reordering));
  return state;
}

}  // namespace

uint64_t adjacency_fingerprint(const EdgeList& edges, const GraphOptions& options) {
  uint64_t state = hash_combine(0x5347'4e4e'4144'4a00ull, kAdjacencyCacheVersion);
  state = hash_combine(state, static_cast<uint64_t>(edges.num_nodes));
  state = hash_tensor(edges.source, state);
  state = hash_tensor(edges.target, state);
  state = hash_tensor(edges.weight, state);
  return options_fingerprint(state, options);
}

uint64_t adjacency_fingerprint(const Dataset& dataset, const GraphOptions& options) {
  if (dataset.fingerprint == 0) return adjacency_fingerprint(dataset.edges, options);
  uint64_t state = hash_combine(0x5347'4e4e'4144'5300ull, kAdjacencyCacheVersion);
  state = hash_combine(state, dataset.fingerprint);
  return options_fingerprint(state, options);
}

std::optional<int64_t> cached_adjacency_entries(const std::filesystem::path& file, uint64_t fingerprint) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return std::nullopt;
  try {
    const SectionFile contents = map_section_file(file, kKind, kAdjacencyCacheVersion);  // the header only is read
    if (contents.fingerprint != fingerprint) return std::nullopt;
    return parse_count(contents, "nnz");
  } catch (const IoError&) {
    return std::nullopt;
  }
}

std::filesystem::path adjacency_cache_path(const std::filesystem::path& cache_dir, uint64_t fingerprint) {
  char name[64];
  std::snprintf(name, sizeof(name), "adjacency-%016llx.sgnn", static_cast<unsigned long long>(fingerprint));
  return cache_dir / name;
}

AdjacencyCacheEntry adjacency_cache_entry(const std::filesystem::path& cache_dir, const Dataset& dataset,
                                          const GraphOptions& options) {
  AdjacencyCacheEntry entry;
  entry.fingerprint = adjacency_fingerprint(dataset, options);
  entry.file = adjacency_cache_path(cache_dir, entry.fingerprint);
  return entry;
}

std::optional<int64_t> cached_adjacency_entries(const std::filesystem::path& cache_dir, const Dataset& dataset,
                                                const GraphOptions& options) {
  const AdjacencyCacheEntry entry = adjacency_cache_entry(cache_dir, dataset, options);
  return cached_adjacency_entries(entry.file, entry.fingerprint);
}

void store_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint, const CachedAdjacency& cached) {
  const Adjacency& a = cached.adjacency;
  SGNN_CHECK(cached.weighted_edges || cached.normalization == Normalization::None || a.weighted(),
             "store_adjacency_cache: the adjacency has no values, yet its normalisation says it has");
  SectionFile contents;
  contents.kind = kKind;
  contents.kind_version = kAdjacencyCacheVersion;
  contents.fingerprint = fingerprint;
  contents.metadata["num_nodes"] = std::to_string(a.num_rows());
  contents.metadata["nnz"] = std::to_string(a.nnz());
  const std::string mode = values_mode(cached);
  contents.metadata["values"] = mode;
  contents.add("csr.indptr", a.csr.indptr);
  contents.add("csr.indices", a.csr.indices);
  if (mode == kValuesStored) contents.add("values", a.values);
  if (cached.node_order.defined()) contents.add("node_order", cached.node_order);
  write_section_file(file, contents);
}

std::optional<CachedAdjacency> load_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                                    std::string& problem, Device device, const PrepareOptions& derive) {
  problem.clear();
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return std::nullopt;
  try {
    // Mapped, then each section checked as it moves to `device` (no pass of its own over the entries).
    SectionFile contents = map_section_file(file, kKind, kAdjacencyCacheVersion);
    if (contents.fingerprint != fingerprint) {
      throw IoError(file.string(), 0, "fingerprint differs from the inputs' (stale or renamed file)");
    }
    Csr pattern;
    pattern.num_rows = pattern.num_cols = parse_count(contents, "num_nodes");
    pattern.nnz = parse_count(contents, "nnz");
    const std::string& mode = contents.meta("values");
    Normalization normalization = Normalization::None;
    if (mode == kValuesSymmetric) {
      normalization = Normalization::Symmetric;
    } else if (mode == kValuesRow) {
      normalization = Normalization::Row;
    } else if (mode != kValuesStored && mode != kValuesNone) {
      throw IoError(file.string(), 0, detail::concat("metadata values=\"", mode, "\" is not a known mode"));
    }
    if (mode != kValuesStored && contents.has("values")) {
      throw IoError(file.string(), 0, detail::concat("section \"values\" present although values=\"", mode, "\""));
    }
    std::vector<std::string> names{"csr.indptr", "csr.indices"};
    if (mode == kValuesStored) names.emplace_back("values");
    check_section_shapes(contents, pattern, mode == kValuesStored);
    std::vector<Tensor> uploaded = upload_sections(contents, names, device);
    pattern.indptr = uploaded[0];
    pattern.indices = uploaded[1];
    check_sorted_pattern(pattern, file.string());
    const Tensor weights = mode == kValuesStored ? uploaded[2] : Tensor();

    CachedAdjacency cached;
    if (contents.has("node_order")) {
      contents.verify("node_order");
      cached.node_order = contents.at("node_order");
      if (cached.node_order.dtype() != DType::Int32 || cached.node_order.shape() != Shape{pattern.num_rows} ||
          !is_permutation(cached.node_order)) {
        throw IoError(file.string(), 0, "section \"node_order\" is not a permutation of the nodes");
      }
    }
    cached.weighted_edges = mode == kValuesStored;
    cached.normalization = normalization;
    PrepareOptions options = derive;
    options.normalization = normalization;
    options.device = device;
    cached.adjacency = adjacency_from_pattern(pattern, weights, options);
    return cached;
  } catch (const IoError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
}

}  // namespace sgnn::graph_io
