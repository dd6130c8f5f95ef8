#include "graph_io/adjacency_cache.hpp"

#include <algorithm>
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

// The derived arrays of a host adjacency (format 3), which CPU loads map.
// Metadata "transpose": "csr" where Aᵀ shares A's arrays (a symmetric
// pattern), else "stored"; "transpose_values": "none", "values" (shared with
// A's) or "stored". The edge map and the symmetric scale are there when the
// preparation kept them.
constexpr const char* kRowOrder = "derived.csr.row_order";
constexpr const char* kTransposeIndptr = "derived.transpose.indptr";
constexpr const char* kTransposeIndices = "derived.transpose.indices";
constexpr const char* kTransposeRowOrder = "derived.transpose.row_order";
constexpr const char* kTransposeToCsr = "derived.transpose_to_csr";
constexpr const char* kDerivedValues = "derived.values";  // A's values where the "values" section is not them
constexpr const char* kTransposeValues = "derived.transpose_values";
constexpr const char* kSymmetricScale = "derived.symmetric_scale";

// Whether `a` holds every derived array (a host adjacency as prepare makes it).
bool has_derived_arrays(const Adjacency& a) {
  return a.device().is_cpu() && a.csr.row_order.defined() && a.transpose.indices.defined() &&
         a.transpose.row_order.defined() && a.values.defined() == a.transpose_values.defined();
}

void add_derived_sections(SectionFile& contents, const Adjacency& a, bool values_stored) {
  contents.add(kRowOrder, a.csr.row_order);
  const bool shared = a.transpose.indices.shares_storage_with(a.csr.indices);
  contents.metadata["transpose"] = shared ? "csr" : "stored";
  if (!shared) {
    contents.add(kTransposeIndptr, a.transpose.indptr);
    contents.add(kTransposeIndices, a.transpose.indices);
    contents.add(kTransposeRowOrder, a.transpose.row_order);
  }
  if (a.transpose_to_csr.defined()) contents.add(kTransposeToCsr, a.transpose_to_csr);
  if (a.values.defined() && !values_stored) contents.add(kDerivedValues, a.values);
  std::string& transpose_values = contents.metadata["transpose_values"];
  if (!a.transpose_values.defined()) {
    transpose_values = "none";
  } else if (a.transpose_values.shares_storage_with(a.values)) {
    transpose_values = "values";
  } else {
    transpose_values = "stored";
    contents.add(kTransposeValues, a.transpose_values);
  }
  if (a.symmetric_scale.defined()) contents.add(kSymmetricScale, a.symmetric_scale);
}

// The host adjacency of `pattern` (checked) from the file's derived arrays,
// mapped: nullopt when the file has none or they were made with another
// edge map or symmetric scale than `edge_map` and `symmetric_scale` ask for
// (they are derived then). `values`: A's values when the file stores them.
// Throws IoError when the arrays do not fit the pattern.
std::optional<Adjacency> mapped_adjacency(SectionFile& contents, const Csr& pattern, const Tensor& values,
                                          bool derived_values, bool edge_map, bool symmetric_scale) {
  if (!contents.metadata.contains("transpose")) return std::nullopt;
  if (contents.has(kTransposeToCsr) != edge_map || contents.has(kSymmetricScale) != symmetric_scale) {
    return std::nullopt;
  }
  const std::string& source = contents.source;
  const std::string& transpose_mode = contents.meta("transpose");
  const std::string& transpose_values_mode = contents.meta("transpose_values");
  const bool transpose_stored = transpose_mode == "stored";
  const bool has_values = values.defined() || derived_values;
  const bool modes_fit = (transpose_stored || transpose_mode == "csr") &&
                         (has_values ? transpose_values_mode == "values" || transpose_values_mode == "stored"
                                     : transpose_values_mode == "none") &&
                         contents.has(kDerivedValues) == derived_values;
  if (!modes_fit) throw IoError(source, 0, "the derived arrays' sections do not fit together");
  std::vector<std::string> names{kRowOrder};
  if (transpose_stored) names.insert(names.end(), {kTransposeIndptr, kTransposeIndices, kTransposeRowOrder});
  if (edge_map) names.emplace_back(kTransposeToCsr);
  if (derived_values) names.emplace_back(kDerivedValues);
  if (transpose_values_mode == "stored") names.emplace_back(kTransposeValues);
  if (symmetric_scale) names.emplace_back(kSymmetricScale);
  const Shape entries{pattern.nnz};
  const auto float_entries = [&](const char* name) {
    return !contents.has(name) || (contents.at(name).dtype() == DType::Float32 && contents.at(name).shape() == entries);
  };
  const bool shapes_fit = float_entries(kDerivedValues) && float_entries(kTransposeValues) &&
                          (!symmetric_scale || (contents.at(kSymmetricScale).dtype() == DType::Int64 &&
                                                contents.at(kSymmetricScale).shape() == Shape{pattern.num_rows}));
  if (!shapes_fit) throw IoError(source, 0, "the derived values' sections do not fit the pattern (shape or dtype)");
  const std::vector<Tensor> mapped = upload_sections(contents, names, Device::cpu());  // checksums checked, no copy
  const auto take = [&](const char* name) {
    return mapped[static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin())];
  };

  Adjacency a;
  a.csr = pattern;
  a.csr.row_order = take(kRowOrder);
  check_row_order(a.csr, a.csr.row_order, source);
  a.transpose = a.csr;
  if (transpose_stored) {
    a.transpose.indptr = take(kTransposeIndptr);
    a.transpose.indices = take(kTransposeIndices);
    a.transpose.row_order = Tensor();
    check_sorted_pattern(a.transpose, source);
    a.transpose.row_order = take(kTransposeRowOrder);
    check_row_order(a.transpose, a.transpose.row_order, source);
  }
  if (edge_map) {
    a.transpose_to_csr = take(kTransposeToCsr);
    check_transpose_map(a.csr, a.transpose, a.transpose_to_csr, source);
  }
  a.values = derived_values ? take(kDerivedValues) : values;
  if (has_values) a.transpose_values = transpose_values_mode == "values" ? a.values : take(kTransposeValues);
  if (symmetric_scale) a.symmetric_scale = take(kSymmetricScale);
  return a;
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

uint64_t options_fingerprint(uint64_t state, const GraphOptions& options, bool entry_edges) {
  if (entry_edges) state = hash_combine(state, 0x5347'4e4e'4544'4745ull);  // only then: other keys stay as they were
  state = hash_combine(state, options.prepare.symmetrize ? 1 : 0);
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.self_loops));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.duplicates));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.normalization));
  state = hash_combine(state, static_cast<uint64_t>(options.reordering));
  return state;
}

// The entries' edges of a graph that carries edge features (section
// "entry_edges", metadata "entry_edges.edges" the edge count they index),
// read on the host and checked: they index the features on every load.
Tensor load_entry_edges(SectionFile& contents, int64_t nnz, int64_t& edge_count) {
  contents.verify("entry_edges");
  const Tensor& edges = contents.at("entry_edges");
  if (edges.dtype() != DType::Int64 || edges.shape() != Shape{nnz}) {
    throw IoError(contents.source, 0, "section \"entry_edges\" does not fit the pattern (shape or dtype)");
  }
  edge_count = parse_count(contents, "entry_edges.edges");
  const int64_t* edge = edges.data<int64_t>();
  for (int64_t k = 0; k < nnz; ++k) {
    if (edge[k] < -1 || edge[k] >= edge_count) {
      throw IoError(contents.source, 0, detail::concat("section \"entry_edges\": entry ", k, " takes edge ", edge[k],
                                                       ", outside [-1, ", edge_count, ")"));
    }
  }
  return edges;
}

}  // namespace

uint64_t adjacency_fingerprint(const EdgeList& edges, const GraphOptions& options, bool entry_edges) {
  uint64_t state = hash_combine(0x5347'4e4e'4144'4a00ull, kAdjacencyCacheVersion);
  state = hash_combine(state, static_cast<uint64_t>(edges.num_nodes));
  state = hash_tensor(edges.source, state);
  state = hash_tensor(edges.target, state);
  state = hash_tensor(edges.weight, state);
  return options_fingerprint(state, options, entry_edges);
}

uint64_t adjacency_fingerprint(const Dataset& dataset, const GraphOptions& options) {
  const bool entry_edges = options.edge_features && dataset.edge_features.defined();
  if (dataset.fingerprint == 0) return adjacency_fingerprint(dataset.edges, options, entry_edges);
  uint64_t state = hash_combine(0x5347'4e4e'4144'5300ull, kAdjacencyCacheVersion);
  state = hash_combine(state, dataset.fingerprint);
  return options_fingerprint(state, options, entry_edges);
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
  if (cached.entry_edges.defined()) {
    SGNN_CHECK(cached.entry_edges.dtype() == DType::Int64 && cached.entry_edges.shape() == Shape{a.nnz()},
               "store_adjacency_cache: entry_edges ", shape_str(cached.entry_edges.shape()),
               " must be int64 [nnz = ", a.nnz(), "]");
    contents.add("entry_edges", cached.entry_edges);
    contents.metadata["entry_edges.edges"] = std::to_string(cached.edge_count);
  }
  if (has_derived_arrays(a)) add_derived_sections(contents, a, mode == kValuesStored);
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
    if (contents.has("entry_edges")) cached.entry_edges = load_entry_edges(contents, pattern.nnz, cached.edge_count);
    cached.weighted_edges = mode == kValuesStored;
    cached.normalization = normalization;
    PrepareOptions options = derive;
    options.normalization = normalization;
    options.device = device;
    const bool symmetric_scale = keeps_symmetric_scale(options, weights.defined());
    std::optional<Adjacency> mapped;
    if (device.is_cpu()) {
      const bool derived_values = normalization != Normalization::None && !symmetric_scale;
      mapped = mapped_adjacency(contents, pattern, weights, derived_values, options.edge_map, symmetric_scale);
    }
    cached.adjacency = mapped ? std::move(*mapped) : adjacency_from_pattern(pattern, weights, options);
    return cached;
  } catch (const IoError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
}

}  // namespace sgnn::graph_io
