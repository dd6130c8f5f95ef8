#include "graph_io/adjacency_cache.hpp"

#include <cstdio>

#include "graph_io/fingerprint.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

constexpr const char* kKind = "adjacency-cache";

void add_csr(SectionFile& file, const std::string& prefix, const Csr& csr) {
  file.add(prefix + ".indptr", csr.indptr);
  file.add(prefix + ".indices", csr.indices);
  if (csr.row_order.defined()) file.add(prefix + ".row_order", csr.row_order);
}

Tensor optional_section(const SectionFile& file, const std::string& name) {
  return file.has(name) ? file.at(name) : Tensor();
}

// Checks the cheap invariants a CRC cannot: the sections fit together.
void check_csr(const Csr& csr, const std::string& file) {
  const bool ok = csr.indptr.dtype() == csr_offset_dtype(csr.nnz) && csr.indptr.shape() == Shape{csr.num_rows + 1} &&
                  csr.indices.dtype() == DType::Int32 && csr.indices.shape() == Shape{csr.nnz} &&
                  (!csr.row_order.defined() ||
                   (csr.row_order.dtype() == DType::Int32 && csr.row_order.shape() == Shape{csr.num_rows}));
  if (!ok) throw IoError(file, 0, "sections do not fit together (shapes or dtypes)");
  const auto last = [&]() -> int64_t {
    if (csr.indptr.dtype() == DType::Int64) return csr.indptr.data<int64_t>()[csr.num_rows];
    return csr.indptr.data<int32_t>()[csr.num_rows];
  }();
  if (last != csr.nnz) throw IoError(file, 0, "indptr does not end at nnz");
}

Csr read_csr(const SectionFile& file, const std::string& prefix, int64_t rows, int64_t nnz) {
  Csr csr;
  csr.num_rows = rows;
  csr.num_cols = rows;
  csr.nnz = nnz;
  csr.indptr = file.at(prefix + ".indptr");
  csr.indices = file.at(prefix + ".indices");
  csr.row_order = optional_section(file, prefix + ".row_order");
  check_csr(csr, file.source);
  return csr;
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

}  // namespace

uint64_t adjacency_fingerprint(const EdgeList& edges, const GraphOptions& options) {
  uint64_t state = hash_combine(0x5347'4e4e'4144'4a00ull, kAdjacencyCacheVersion);
  state = hash_combine(state, static_cast<uint64_t>(edges.num_nodes));
  state = hash_tensor(edges.source, state);
  state = hash_tensor(edges.target, state);
  state = hash_tensor(edges.weight, state);
  state = hash_combine(state, options.prepare.symmetrize ? 1 : 0);
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.self_loops));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.duplicates));
  state = hash_combine(state, static_cast<uint64_t>(options.prepare.normalization));
  state = hash_combine(state, static_cast<uint64_t>(options.reordering));
  return state;
}

std::filesystem::path adjacency_cache_path(const std::filesystem::path& cache_dir, uint64_t fingerprint) {
  char name[64];
  std::snprintf(name, sizeof(name), "adjacency-%016llx.sgnn", static_cast<unsigned long long>(fingerprint));
  return cache_dir / name;
}

void store_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint, const CachedAdjacency& cached) {
  const Adjacency& a = cached.adjacency;
  SectionFile contents;
  contents.kind = kKind;
  contents.kind_version = kAdjacencyCacheVersion;
  contents.fingerprint = fingerprint;
  contents.metadata["num_nodes"] = std::to_string(a.num_rows());
  contents.metadata["nnz"] = std::to_string(a.nnz());
  add_csr(contents, "csr", a.csr);
  add_csr(contents, "transpose", a.transpose);
  contents.add("transpose_to_csr", a.transpose_to_csr);
  if (a.values.defined()) {
    contents.add("values", a.values);
    contents.add("transpose_values", a.transpose_values);
  }
  if (cached.node_order.defined()) contents.add("node_order", cached.node_order);
  write_section_file(file, contents);
}

std::optional<CachedAdjacency> load_adjacency_cache(const std::filesystem::path& file, uint64_t fingerprint,
                                                    std::string& problem) {
  problem.clear();
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return std::nullopt;
  try {
    const SectionFile contents = read_section_file(file, kKind, kAdjacencyCacheVersion);
    if (contents.fingerprint != fingerprint) {
      throw IoError(file.string(), 0, "fingerprint differs from the inputs' (stale or renamed file)");
    }
    const int64_t n = parse_count(contents, "num_nodes");
    const int64_t nnz = parse_count(contents, "nnz");
    CachedAdjacency cached;
    cached.adjacency.csr = read_csr(contents, "csr", n, nnz);
    cached.adjacency.transpose = read_csr(contents, "transpose", n, nnz);
    cached.adjacency.transpose_to_csr = contents.at("transpose_to_csr");
    cached.adjacency.values = optional_section(contents, "values");
    cached.adjacency.transpose_values = optional_section(contents, "transpose_values");
    cached.node_order = optional_section(contents, "node_order");
    const Adjacency& a = cached.adjacency;
    const bool values_ok = a.values.defined() == a.transpose_values.defined() &&
                           (!a.values.defined() || (a.values.dtype() == DType::Float32 && a.values.shape() == Shape{nnz} &&
                                                    a.transpose_values.dtype() == DType::Float32 &&
                                                    a.transpose_values.shape() == Shape{nnz}));
    const bool map_ok = a.transpose_to_csr.dtype() == csr_offset_dtype(nnz) && a.transpose_to_csr.shape() == Shape{nnz};
    const bool order_ok = !cached.node_order.defined() ||
                          (cached.node_order.dtype() == DType::Int32 && cached.node_order.shape() == Shape{n});
    if (!values_ok || !map_ok || !order_ok) throw IoError(file.string(), 0, "sections do not fit together");
    return cached;
  } catch (const IoError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
}

}  // namespace sgnn::graph_io
