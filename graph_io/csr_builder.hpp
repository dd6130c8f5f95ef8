// The adjacency builder behind prepare_adjacency, written once with Thrust
// and instantiated with a host policy (graph_io/prepare.cpp: OpenMP threads)
// and a device policy (graph_io/cuda/prepare_device.cu: the library's stream,
// temporaries from its memory pool); assemble_pattern likewise from
// graph_io/adjacency_from_pattern.cpp and graph_io/cuda/adjacency_from_pattern.cu.
// Include only from those files.
//
// Steps (E input edges, n nodes; entry (row, col) of A is the edge col -> row):
//   keys     row << 32 | col for every edge (and the reverse when symmetrising)
//   loops    removed (SelfLoops::Remove) before sorting
//   sort     stable by key, so "first occurrence" means input order
//   repeats  Merge: weights summed in input order; Drop (or no weights): first kept
//   loops    added where missing (SelfLoops::Add), weight 1, by a sorted merge
//   edges    on request, the input edge of every entry (the first of a run,
//            -1 for an added loop), for the edge features (prepare.hpp)
//   CSR      indptr by a vectorised lower_bound over the sorted rows
//   values   weights, or D^-1/2 A D^-1/2 / D^-1 A with D the float64 row sums
//   CSC      a symmetric pattern (every reverse entry found by binary search)
//            shares A's arrays (and symmetric values); otherwise a sort of
//            (col << 32 | row, edge id): transpose pattern + transpose_to_csr
//   order    rows by decreasing length, ties by id, for A and Aᵀ
// Every floating-point operation happens in the same order on both policies
// (per-row and per-run sums are sequential loops, no parallel reductions), so
// host and device results are bitwise equal.
#pragma once

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/logical.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <cmath>
#include <cstdint>

#include "core/adjacency.hpp"
#include "graph_io/prepare.hpp"

#if defined(__CUDACC__)
#define SGNN_CSR_HD __host__ __device__
#else
#define SGNN_CSR_HD
#endif

namespace sgnn::graph_io::csr_builder {

using Key = uint64_t;
constexpr Key kLowMask = 0xffffffffull;

SGNN_CSR_HD inline int32_t key_high(Key key) { return static_cast<int32_t>(key >> 32); }
SGNN_CSR_HD inline int32_t key_low(Key key) { return static_cast<int32_t>(key & kLowMask); }
SGNN_CSR_HD inline Key make_key(int32_t high, int32_t low) {
  return (static_cast<Key>(static_cast<uint32_t>(high)) << 32) | static_cast<uint32_t>(low);
}

// Key of entry k: edge k as (target, source) for k < E, else edge k − E reversed.
struct EntryKey {
  const int32_t* source;
  const int32_t* target;
  int64_t num_edges;
  SGNN_CSR_HD Key operator()(int64_t k) const {
    return k < num_edges ? make_key(target[k], source[k]) : make_key(source[k - num_edges], target[k - num_edges]);
  }
};

struct EntryWeight {
  const float* weight;
  int64_t num_edges;
  SGNN_CSR_HD float operator()(int64_t k) const { return weight[k < num_edges ? k : k - num_edges]; }
};

// The input edge of entry k: k for an input edge, k − E for the reverse symmetrize adds.
struct EntryEdge {
  int64_t num_edges;
  SGNN_CSR_HD int64_t operator()(int64_t k) const { return k < num_edges ? k : k - num_edges; }
};

struct IsLoopKey {
  SGNN_CSR_HD bool operator()(Key key) const { return key_high(key) == key_low(key); }
};

// A zipped (key, rider) entry whose key is a loop (the rider: its weight or its edge).
struct IsLoopEntry {
  template <typename Entry>
  SGNN_CSR_HD bool operator()(const Entry& entry) const {
    return IsLoopKey{}(thrust::get<0>(entry));
  }
};

// values[i] for i >= 0, else `fallback` (an entry merged in from elsewhere).
template <typename T>
struct TakeOr {
  const T* values;
  T fallback;
  SGNN_CSR_HD T operator()(int64_t i) const { return i >= 0 ? values[i] : fallback; }
};

struct OutOfRange {
  const int32_t* source;
  const int32_t* target;
  int64_t num_nodes;
  SGNN_CSR_HD bool operator()(int64_t k) const {
    return source[k] < 0 || source[k] >= num_nodes || target[k] < 0 || target[k] >= num_nodes;
  }
};

struct NotFinite {
  // w - w is 0 for every finite w and NaN for NaN and ±Inf.
  SGNN_CSR_HD bool operator()(float w) const { return !(w - w == 0.0f); }
};

struct IsRunStart {
  const Key* keys;
  SGNN_CSR_HD bool operator()(int64_t k) const { return k == 0 || keys[k] != keys[k - 1]; }
};

// Sum of the weights of run u, in input order (float, like a sequential merge).
struct RunSum {
  const float* weights;
  const int64_t* starts;
  int64_t runs;
  int64_t total;
  SGNN_CSR_HD float operator()(int64_t u) const {
    const int64_t end = u + 1 < runs ? starts[u + 1] : total;
    float sum = weights[starts[u]];
    for (int64_t k = starts[u] + 1; k < end; ++k) sum += weights[k];
    return sum;
  }
};

struct GatherKey {
  const Key* keys;
  SGNN_CSR_HD Key operator()(int64_t k) const { return keys[k]; }
};

struct MarkLoop {
  const Key* keys;
  int32_t* has_loop;
  SGNN_CSR_HD void operator()(int64_t k) const {
    if (key_high(keys[k]) == key_low(keys[k])) has_loop[key_high(keys[k])] = 1;
  }
};

struct IsZero {
  SGNN_CSR_HD bool operator()(int32_t v) const { return v == 0; }
};

struct LoopKey {
  SGNN_CSR_HD Key operator()(int32_t node) const { return make_key(node, node); }
};

struct HighOf {
  SGNN_CSR_HD int32_t operator()(Key key) const { return key_high(key); }
};

struct LowOf {
  SGNN_CSR_HD int32_t operator()(Key key) const { return key_low(key); }
};

struct SwapKey {
  SGNN_CSR_HD Key operator()(Key key) const { return make_key(key_low(key), key_high(key)); }
};

// Per node: 1/sqrt(degree) (symmetric; 0 for an empty row) or the degree
// itself (row), degree = float64 sum of the row's weights in CSR order.
template <typename Offset>
struct DegreeScale {
  const Offset* indptr;
  const float* weights;  // nullptr: every entry weighs 1
  bool symmetric;
  SGNN_CSR_HD double operator()(int64_t row) const {
    double degree = 0.0;
    for (int64_t k = static_cast<int64_t>(indptr[row]); k < static_cast<int64_t>(indptr[row + 1]); ++k) {
      degree += weights != nullptr ? static_cast<double>(weights[k]) : 1.0;
    }
    if (!symmetric) return degree;
    return degree > 0.0 ? 1.0 / std::sqrt(degree) : 0.0;
  }
};

// Where the row and column of entry k come from: the (row << 32 | col)
// keys of a build, or a sorted CSR pattern, whose row is found by binary
// search over the offsets (no nnz-sized row array: the cache's load path
// keeps its device peak at the pattern, values and features).
struct KeyEntries {
  const Key* keys;
  SGNN_CSR_HD int32_t row(int64_t k) const { return key_high(keys[k]); }
  SGNN_CSR_HD int32_t col(int64_t k) const { return key_low(keys[k]); }
};

template <typename Offset>
struct PatternEntries {
  const Offset* indptr;
  const int32_t* indices;
  int64_t num_rows;
  // The last row whose first entry is at or before k.
  SGNN_CSR_HD int32_t row(int64_t k) const {
    int64_t low = 0;
    int64_t high = num_rows;
    while (low < high) {
      const int64_t middle = low + (high - low + 1) / 2;
      if (static_cast<int64_t>(indptr[middle]) <= k) low = middle;
      else high = middle - 1;
    }
    return static_cast<int32_t>(low);
  }
  SGNN_CSR_HD int32_t col(int64_t k) const { return indices[k]; }
};

// Normalised value of entry k: w / sqrt(d_row d_col) as w · s_row · s_col, or w / d_row.
template <typename Entries>
struct NormalisedValue {
  Entries entries;
  const float* weights;
  const double* scale;
  bool symmetric;
  SGNN_CSR_HD float operator()(int64_t k) const {
    const double w = weights != nullptr ? static_cast<double>(weights[k]) : 1.0;
    const double row_scale = scale[entries.row(k)];
    if (!symmetric) return static_cast<float>(row_scale > 0.0 ? w / row_scale : 0.0);
    return static_cast<float>(w * row_scale * scale[entries.col(k)]);
  }
};

// Sort key of a row for row_order: shorter rows later, then by id.
template <typename Offset>
struct RowOrderKey {
  const Offset* indptr;
  int64_t num_rows;
  SGNN_CSR_HD Key operator()(int64_t row) const {
    const int64_t length = static_cast<int64_t>(indptr[row + 1]) - static_cast<int64_t>(indptr[row]);
    return (static_cast<Key>(num_rows - length) << 32) | static_cast<Key>(row);
  }
};

inline Key* key_data(const Tensor& t) { return reinterpret_cast<Key*>(t.data<int64_t>()); }

// Position of the reverse of entry k, (col, row) for k = (row, col), found by
// binary search in row col of the sorted CSR; -1 where it is missing.
template <typename Offset, typename Entries>
struct ReverseEntry {
  Entries entries;
  const Offset* indptr;
  const int32_t* indices;
  SGNN_CSR_HD Offset operator()(int64_t k) const {
    const int32_t row = entries.row(k);
    const int32_t col = entries.col(k);
    int64_t low = static_cast<int64_t>(indptr[col]);
    int64_t high = static_cast<int64_t>(indptr[col + 1]);
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (indices[middle] < row) low = middle + 1;
      else high = middle;
    }
    return low < static_cast<int64_t>(indptr[col + 1]) && indices[low] == row ? static_cast<Offset>(low) : Offset{-1};
  }
};

template <typename Offset>
struct IsMissing {
  SGNN_CSR_HD bool operator()(Offset position) const { return position < 0; }
};

// Entry k has no reverse (the map not stored: looked up here).
template <typename Offset, typename Entries>
struct HasNoReverse {
  ReverseEntry<Offset, Entries> reverse;
  SGNN_CSR_HD bool operator()(int64_t k) const { return reverse(k) < 0; }
};

// Entry k's value differs from its reverse's (position from the map).
template <typename Offset>
struct AsymmetricValue {
  const float* values;
  const Offset* reverse;
  SGNN_CSR_HD bool operator()(int64_t k) const { return values[k] != values[static_cast<int64_t>(reverse[k])]; }
};

// The same, the reverse looked up (every reverse exists: checked before).
template <typename Offset, typename Entries>
struct AsymmetricValueLookup {
  const float* values;
  ReverseEntry<Offset, Entries> reverse;
  SGNN_CSR_HD bool operator()(int64_t k) const { return values[k] != values[static_cast<int64_t>(reverse(k))]; }
};

// Rows of A by decreasing length, ties by id.
template <typename Policy, typename Offset>
Tensor row_order(const Policy& policy, const Offset* indptr, int64_t num_rows, Device device) {
  Tensor keys = Tensor::empty({num_rows}, DType::Int64, device);
  Tensor order = Tensor::empty({num_rows}, DType::Int32, device);
  thrust::counting_iterator<int64_t> rows(0);
  thrust::transform(policy, rows, rows + num_rows, key_data(keys), RowOrderKey<Offset>{indptr, num_rows});
  thrust::sort(policy, key_data(keys), key_data(keys) + num_rows);
  thrust::transform(policy, key_data(keys), key_data(keys) + num_rows, order.data<int32_t>(), LowOf{});
  return order;
}

// indptr [num_rows + 1] of the row ids `rows` (sorted, length nnz).
template <typename Policy, typename Offset>
Tensor row_offsets(const Policy& policy, const int32_t* rows, int64_t nnz, int64_t num_rows, Device device) {
  Tensor indptr = Tensor::empty({num_rows + 1}, dtype_of<Offset>(), device);
  // int64 row ids: num_rows + 1 reaches 2^31 for the largest graphs.
  thrust::counting_iterator<int64_t> first(0);
  thrust::lower_bound(policy, rows, rows + nnz, first, first + (num_rows + 1), indptr.data<Offset>());
  return indptr;
}

// Per node: the float64 scales of `symmetric` (D^-1/2) or row (D)
// normalisation, in an int64 tensor's bytes (Tensor has no float64 dtype).
template <typename Policy, typename Offset>
Tensor degree_scales(const Policy& policy, const Offset* indptr, const float* weight, bool symmetric, int64_t n,
                     Device device) {
  Tensor scale_storage = Tensor::empty({n}, DType::Int64, device);
  auto* scale = reinterpret_cast<double*>(scale_storage.data<int64_t>());
  thrust::counting_iterator<int64_t> nodes(0);
  thrust::transform(policy, nodes, nodes + n, scale, DegreeScale<Offset>{indptr, weight, symmetric});
  return scale_storage;
}

// Values of the nnz entries `entries` (sorted, unique; rows given by
// `indptr`): the weights, or their normalisation (undefined without either).
template <typename Policy, typename Offset, typename Entries>
Tensor entry_values(const Policy& policy, Entries entries, int64_t nnz, const Tensor& weights,
                    const PrepareOptions& options, const Offset* indptr, int64_t n, Device device) {
  if (options.normalization == Normalization::None) return weights;
  const float* weight = weights.defined() ? weights.data<float>() : nullptr;
  const bool symmetric = options.normalization == Normalization::Symmetric;
  const Tensor scale_storage = degree_scales(policy, indptr, weight, symmetric, n, device);
  const auto* scale = reinterpret_cast<const double*>(scale_storage.data<int64_t>());
  Tensor values = Tensor::empty({nnz}, DType::Float32, device);
  thrust::counting_iterator<int64_t> first(0);
  thrust::transform(policy, first, first + nnz, values.data<float>(),
                    NormalisedValue<Entries>{entries, weight, scale, symmetric});
  return values;
}

// adjacency.values from entry_values, or adjacency.symmetric_scale where the
// options keep it (keeps_symmetric_scale).
template <typename Policy, typename Offset, typename Entries>
void assign_weights(const Policy& policy, Adjacency& adjacency, Entries entries, const Tensor& weights,
                    const PrepareOptions& options, const Offset* indptr, Device device) {
  const int64_t n = adjacency.csr.num_rows;
  if (keeps_symmetric_scale(options, weights.defined())) {
    adjacency.symmetric_scale = degree_scales(policy, indptr, static_cast<const float*>(nullptr), true, n, device);
    return;
  }
  adjacency.values = entry_values(policy, entries, adjacency.csr.nnz, weights, options, indptr, n, device);
}

// The values symmetric_scale `scale` stands for on `csr` (A or Aᵀ: the
// weight of entry (r, c) is float(s[r] · s[c]) either way), bitwise what
// entry_values stores.
template <typename Offset, typename Policy>
Tensor scaled_values(const Policy& policy, const Csr& csr, const double* scale, Device device) {
  Tensor values = Tensor::empty({csr.nnz}, DType::Float32, device);
  const PatternEntries<Offset> entries{csr.indptr.data<Offset>(), csr.indices.data<int32_t>(), csr.num_rows};
  thrust::counting_iterator<int64_t> first(0);
  thrust::transform(policy, first, first + csr.nnz, values.data<float>(),
                    NormalisedValue<PatternEntries<Offset>>{entries, nullptr, scale, true});
  return values;
}

// A symmetric pattern is its own transpose: Aᵀ then shares A's arrays (and
// its values where they are symmetric too, as GCN's D^-1/2 A D^-1/2 is), and
// entry k of Aᵀ, (col, row), is A's reverse entry (row, col), found by binary
// search: no sort of nnz keys and none of its temporaries, and the arrays are
// bitwise those a transpose by sorting gives. Needs adjacency.csr (sorted)
// and values. With options.edge_map the map is stored in
// adjacency.transpose_to_csr; without it the reverses are looked up where
// needed and no nnz-sized array is allocated (unless the values are not
// symmetric: their transpose is gathered through a map that is then freed).
// Returns false when some reverse entry is missing (or the matrix is not
// square); adjacency.transpose_to_csr is then allocated, content undefined,
// for the caller's transpose by sorting.
template <typename Policy, typename Offset, typename Entries>
bool share_symmetric_transpose(const Policy& policy, Adjacency& adjacency, Entries entries,
                               const PrepareOptions& options, Device device) {
  const Csr& csr = adjacency.csr;
  const int64_t nnz = csr.nnz;
  const ReverseEntry<Offset, Entries> reverse{entries, csr.indptr.data<Offset>(), csr.indices.data<int32_t>()};
  thrust::counting_iterator<int64_t> first(0);
  const auto allocate_map = [&] { return Tensor::empty({nnz}, dtype_of<Offset>(), device); };
  if (csr.num_rows != csr.num_cols) {
    adjacency.transpose_to_csr = allocate_map();
    return false;
  }
  if (options.edge_map) {
    adjacency.transpose_to_csr = allocate_map();
    Offset* map = adjacency.transpose_to_csr.data<Offset>();
    thrust::transform(policy, first, first + nnz, map, reverse);
    if (!thrust::none_of(policy, map, map + nnz, IsMissing<Offset>{})) return false;
  } else if (thrust::any_of(policy, first, first + nnz, HasNoReverse<Offset, Entries>{reverse})) {
    adjacency.transpose_to_csr = allocate_map();
    return false;
  }
  adjacency.transpose = csr;
  if (!adjacency.values.defined()) return true;
  const float* values = adjacency.values.data<float>();
  const bool symmetric_values =
      options.edge_map
          ? thrust::none_of(policy, first, first + nnz,
                            AsymmetricValue<Offset>{values, adjacency.transpose_to_csr.data<Offset>()})
          : thrust::none_of(policy, first, first + nnz, AsymmetricValueLookup<Offset, Entries>{values, reverse});
  if (symmetric_values) {
    adjacency.transpose_values = adjacency.values;
    return true;
  }
  Tensor map = options.edge_map ? adjacency.transpose_to_csr : allocate_map();
  if (!options.edge_map) thrust::transform(policy, first, first + nnz, map.data<Offset>(), reverse);
  adjacency.transpose_values = Tensor::empty({nnz}, DType::Float32, device);
  thrust::gather(policy, map.data<Offset>(), map.data<Offset>() + nnz, values, adjacency.transpose_values.data<float>());
  return true;
}

// Aᵀ of adjacency.csr (entries `key`, sorted) by sorting (col, row) keys with
// the entry ids riding along; adjacency.transpose_to_csr (allocated) receives
// the ids, and the transposed values are gathered through it. Released at the
// end without options.edge_map.
template <typename Policy, typename Offset>
void transpose_by_sort(const Policy& policy, Adjacency& adjacency, const Key* key, const PrepareOptions& options,
                       Device device) {
  const int64_t n = adjacency.csr.num_rows;
  const int64_t nnz = adjacency.csr.nnz;
  Offset* map = adjacency.transpose_to_csr.data<Offset>();
  Tensor transpose_keys = Tensor::empty({nnz}, DType::Int64, device);
  thrust::transform(policy, key, key + nnz, key_data(transpose_keys), SwapKey{});
  thrust::sequence(policy, map, map + nnz);
  thrust::sort_by_key(policy, key_data(transpose_keys), key_data(transpose_keys) + nnz, map);
  Tensor rows = Tensor::empty({nnz}, DType::Int32, device);
  Csr& transpose = adjacency.transpose;
  transpose.num_rows = transpose.num_cols = n;
  transpose.nnz = nnz;
  thrust::transform(policy, key_data(transpose_keys), key_data(transpose_keys) + nnz, rows.data<int32_t>(), HighOf{});
  transpose.indptr = row_offsets<Policy, Offset>(policy, rows.data<int32_t>(), nnz, n, device);
  transpose.indices = Tensor::empty({nnz}, DType::Int32, device);
  thrust::transform(policy, key_data(transpose_keys), key_data(transpose_keys) + nnz, transpose.indices.data<int32_t>(),
                    LowOf{});
  transpose.row_order = row_order(policy, transpose.indptr.data<Offset>(), n, device);
  if (adjacency.values.defined()) {
    adjacency.transpose_values = Tensor::empty({nnz}, DType::Float32, device);
    thrust::gather(policy, map, map + nnz, adjacency.values.data<float>(), adjacency.transpose_values.data<float>());
  }
  if (!options.edge_map) adjacency.transpose_to_csr = Tensor();
}

template <typename Policy, typename Offset>
Adjacency assemble(const Policy& policy, const Tensor& keys, const Tensor& weights, const PrepareOptions& options,
                   int64_t n, Device device) {
  const int64_t nnz = keys.numel();
  const Key* key = key_data(keys);
  Adjacency adjacency;
  Csr& csr = adjacency.csr;
  csr.num_rows = csr.num_cols = n;
  csr.nnz = nnz;
  {
    Tensor rows = Tensor::empty({nnz}, DType::Int32, device);
    thrust::transform(policy, key, key + nnz, rows.data<int32_t>(), HighOf{});
    csr.indptr = row_offsets<Policy, Offset>(policy, rows.data<int32_t>(), nnz, n, device);
  }
  csr.indices = Tensor::empty({nnz}, DType::Int32, device);
  thrust::transform(policy, key, key + nnz, csr.indices.data<int32_t>(), LowOf{});
  csr.row_order = row_order(policy, csr.indptr.data<Offset>(), n, device);

  const KeyEntries entries{key};
  assign_weights(policy, adjacency, entries, weights, options, csr.indptr.data<Offset>(), device);
  if (!share_symmetric_transpose<Policy, Offset>(policy, adjacency, entries, options, device)) {
    transpose_by_sort<Policy, Offset>(policy, adjacency, key, options, device);
  }
  return adjacency;
}

// Checks ids and weights on the policy's side (shapes and dtypes were checked
// already); when something is wrong, the host validate() names the first bad edge.
template <typename Policy>
void check_edges(const Policy& policy, const EdgeList& edges) {
  const int64_t e = edges.num_edges();
  if (e == 0) return;
  thrust::counting_iterator<int64_t> first(0);
  const auto bad_ids = thrust::count_if(policy, first, first + e,
                                        OutOfRange{edges.source.data<int32_t>(), edges.target.data<int32_t>(), edges.num_nodes});
  const auto bad_weights =
      edges.weight.defined()
          ? thrust::count_if(policy, edges.weight.data<float>(), edges.weight.data<float>() + e, NotFinite{})
          : 0;
  if (bad_ids != 0 || bad_weights != 0) {
    edges.validate();  // throws with the first offending edge
    throw InvalidArgument("edge list: invalid node ids or weights");  // not reached: validate() found them
  }
}

// Removes the self loops among keys[0, count) and their riders, keeping the
// order (remove_if is stable: input order survives for the duplicate rules).
template <typename Policy, typename Rider>
int64_t remove_loops(const Policy& policy, Key* keys, Rider* riders, int64_t count) {
  auto zipped = thrust::make_zip_iterator(thrust::make_tuple(keys, riders));
  return thrust::remove_if(policy, zipped, zipped + count, IsLoopEntry{}) - zipped;
}

// The whole build on `device` with `policy` (edges already on `device`).
// With `entry_edges`, also the edge each entry comes from (prepare.hpp's
// rule): the edge ids ride with the keys through loop removal and the
// stable sort instead of the weights, which are then gathered by them (the
// same values in the same order, so the same sums).
template <typename Policy>
Adjacency build(const Policy& policy, const EdgeList& edges, const PrepareOptions& options, Device device,
                Tensor* entry_edges = nullptr) {
  const int64_t n = edges.num_nodes;
  const int64_t e = edges.num_edges();
  const bool weighted = edges.weight.defined();
  const bool tracked = entry_edges != nullptr;
  const int64_t m = options.symmetrize ? 2 * e : e;
  Tensor keys = Tensor::empty({m}, DType::Int64, device);
  Tensor weights = weighted && !tracked ? Tensor::empty({m}, DType::Float32, device) : Tensor();
  Tensor sources = tracked ? Tensor::empty({m}, DType::Int64, device) : Tensor();  // the edge of each entry
  thrust::counting_iterator<int64_t> entries(0);
  if (m > 0) {
    thrust::transform(policy, entries, entries + m, key_data(keys),
                      EntryKey{edges.source.data<int32_t>(), edges.target.data<int32_t>(), e});
    if (weights.defined()) {
      thrust::transform(policy, entries, entries + m, weights.data<float>(), EntryWeight{edges.weight.data<float>(), e});
    }
    if (tracked) thrust::transform(policy, entries, entries + m, sources.data<int64_t>(), EntryEdge{e});
  }
  int64_t count = m;
  if (options.self_loops == SelfLoops::Remove && count > 0) {
    if (tracked) {
      count = remove_loops(policy, key_data(keys), sources.data<int64_t>(), count);
    } else if (weighted) {
      count = remove_loops(policy, key_data(keys), weights.data<float>(), count);
    } else {
      count = thrust::remove_if(policy, key_data(keys), key_data(keys) + count, IsLoopKey{}) - key_data(keys);
    }
  }

  // Sort and collapse repeated positions.
  int64_t unique_count = 0;
  Tensor unique_keys;
  Tensor unique_weights;
  Tensor unique_sources;
  if (!weighted && !tracked) {
    thrust::sort(policy, key_data(keys), key_data(keys) + count);
    unique_count = thrust::unique(policy, key_data(keys), key_data(keys) + count) - key_data(keys);
    unique_keys = keys;
  } else {
    if (tracked) {
      thrust::stable_sort_by_key(policy, key_data(keys), key_data(keys) + count, sources.data<int64_t>());
      if (weighted) {
        weights = Tensor::empty({count}, DType::Float32, device);
        thrust::gather(policy, sources.data<int64_t>(), sources.data<int64_t>() + count, edges.weight.data<float>(),
                       weights.data<float>());
      }
    } else {
      thrust::stable_sort_by_key(policy, key_data(keys), key_data(keys) + count, weights.data<float>());
    }
    Tensor starts = Tensor::empty({count}, DType::Int64, device);
    int64_t* start = starts.data<int64_t>();
    unique_count = thrust::copy_if(policy, entries, entries + count, start, IsRunStart{key_data(keys)}) - start;
    unique_keys = Tensor::empty({unique_count}, DType::Int64, device);
    thrust::transform(policy, start, start + unique_count, key_data(unique_keys), GatherKey{key_data(keys)});
    if (weighted) {
      unique_weights = Tensor::empty({unique_count}, DType::Float32, device);
      thrust::counting_iterator<int64_t> runs(0);
      if (options.duplicates == Duplicates::Merge) {
        thrust::transform(policy, runs, runs + unique_count, unique_weights.data<float>(),
                          RunSum{weights.data<float>(), start, unique_count, count});
      } else {
        thrust::gather(policy, start, start + unique_count, weights.data<float>(), unique_weights.data<float>());
      }
    }
    if (tracked) {  // a run's first entry in input order
      unique_sources = Tensor::empty({unique_count}, DType::Int64, device);
      thrust::gather(policy, start, start + unique_count, sources.data<int64_t>(), unique_sources.data<int64_t>());
    }
  }

  Tensor final_keys = unique_keys.numel() == unique_count ? unique_keys : unique_keys.narrow_rows(0, unique_count);
  Tensor final_weights = unique_weights;
  Tensor final_sources = unique_sources;
  if (options.self_loops == SelfLoops::Add && n > 0) {
    Tensor has_loop = Tensor::zeros({n}, DType::Int32, device);
    thrust::for_each(policy, entries, entries + unique_count, MarkLoop{key_data(final_keys), has_loop.data<int32_t>()});
    Tensor missing = Tensor::empty({n}, DType::Int32, device);
    thrust::counting_iterator<int32_t> nodes(0);
    const int64_t missing_count =
        thrust::copy_if(policy, nodes, nodes + static_cast<int32_t>(n), has_loop.data<int32_t>(), missing.data<int32_t>(),
                        IsZero{}) -
        missing.data<int32_t>();
    Tensor loop_keys = Tensor::empty({missing_count}, DType::Int64, device);
    thrust::transform(policy, missing.data<int32_t>(), missing.data<int32_t>() + missing_count, key_data(loop_keys),
                      LoopKey{});
    const int64_t total = unique_count + missing_count;
    Tensor merged_keys = Tensor::empty({total}, DType::Int64, device);
    if (!weighted && !tracked) {
      thrust::merge(policy, key_data(final_keys), key_data(final_keys) + unique_count, key_data(loop_keys),
                    key_data(loop_keys) + missing_count, key_data(merged_keys));
    } else {
      // Where each merged entry comes from: i >= 0 the collapsed entry i, -1 an added loop.
      Tensor origin = Tensor::empty({total}, DType::Int64, device);
      thrust::merge_by_key(policy, key_data(final_keys), key_data(final_keys) + unique_count, key_data(loop_keys),
                           key_data(loop_keys) + missing_count, thrust::counting_iterator<int64_t>(0),
                           thrust::constant_iterator<int64_t>(-1), key_data(merged_keys), origin.data<int64_t>());
      const int64_t* from = origin.data<int64_t>();
      if (weighted) {  // an added loop weighs 1
        Tensor merged_weights = Tensor::empty({total}, DType::Float32, device);
        thrust::transform(policy, from, from + total, merged_weights.data<float>(),
                          TakeOr<float>{final_weights.data<float>(), 1.0f});
        final_weights = merged_weights;
      }
      if (tracked) {  // an added loop comes from no edge
        Tensor merged_sources = Tensor::empty({total}, DType::Int64, device);
        thrust::transform(policy, from, from + total, merged_sources.data<int64_t>(),
                          TakeOr<int64_t>{final_sources.data<int64_t>(), -1});
        final_sources = merged_sources;
      }
    }
    final_keys = merged_keys;
  }
  if (tracked) *entry_edges = final_sources;
  if (csr_offset_dtype(final_keys.numel()) == DType::Int32) {
    return assemble<Policy, int32_t>(policy, final_keys, final_weights, options, n, device);
  }
  return assemble<Policy, int64_t>(policy, final_keys, final_weights, options, n, device);
}

// Row k of `features` [E, width] float32 at entry k's edge (`entry_edges`
// int64 [nnz], as build() gives them), zeros for an added loop (edge -1).
struct EntryFeature {
  const float* features;
  const int64_t* entry_edges;
  int64_t width;
  SGNN_CSR_HD float operator()(int64_t i) const {
    const int64_t edge = entry_edges[i / width];
    return edge < 0 ? 0.0f : features[edge * width + i % width];
  }
};

// [nnz, width] float32 on `device`: the edge features in the entries' order
// (`features` and `entry_edges` on `device`).
template <typename Policy>
Tensor entry_features(const Policy& policy, const Tensor& features, const Tensor& entry_edges, Device device) {
  const int64_t nnz = entry_edges.numel();
  const int64_t width = features.size(1);
  Tensor out = Tensor::empty({nnz, width}, DType::Float32, device);
  thrust::counting_iterator<int64_t> first(0);
  if (nnz * width > 0) {
    thrust::transform(policy, first, first + nnz * width, out.data<float>(),
                      EntryFeature{features.data<float>(), entry_edges.data<int64_t>(), width});
  }
  return out;
}

// Row id of every entry of a CSR pattern: the first entry of each non-empty
// row gets the row id (distinct positions, no races), then a running maximum
// fills the rest. Balanced for any degree distribution, unlike a loop per row.
template <typename Offset>
struct MarkRowStart {
  const Offset* indptr;
  int32_t* rows;
  SGNN_CSR_HD void operator()(int64_t row) const {
    if (indptr[row] < indptr[row + 1]) rows[static_cast<int64_t>(indptr[row])] = static_cast<int32_t>(row);
  }
};

struct Maximum {
  SGNN_CSR_HD int32_t operator()(int32_t a, int32_t b) const { return a < b ? b : a; }
};

struct PatternKey {
  const int32_t* rows;
  const int32_t* cols;
  SGNN_CSR_HD Key operator()(int64_t k) const { return make_key(rows[k], cols[k]); }
};

// The keys (row << 32 | col) of a CSR pattern's entries, in its order.
template <typename Offset, typename Policy>
Tensor pattern_keys(const Policy& policy, const Csr& pattern, Device device) {
  const int64_t nnz = pattern.nnz;
  Tensor keys = Tensor::empty({nnz}, DType::Int64, device);
  if (nnz > 0) {
    Tensor rows = Tensor::zeros({nnz}, DType::Int32, device);
    thrust::counting_iterator<int64_t> first(0);
    thrust::for_each(policy, first, first + pattern.num_rows,
                     MarkRowStart<Offset>{pattern.indptr.data<Offset>(), rows.data<int32_t>()});
    thrust::inclusive_scan(policy, rows.data<int32_t>(), rows.data<int32_t>() + nnz, rows.data<int32_t>(), Maximum{});
    thrust::transform(policy, first, first + nnz, key_data(keys),
                      PatternKey{rows.data<int32_t>(), pattern.indices.data<int32_t>()});
  }
  return keys;
}

// What assemble() makes from the keys of a stored pattern (sorted by (row,
// col) and duplicate-free, checked by the caller; on `device`), bitwise,
// with A's arrays the pattern's own (shared, not copied) and the entries'
// rows found by binary search: a symmetric pattern needs no nnz-sized
// temporaries, only its values (and the edge map when options.edge_map);
// the 64-bit keys are built only for a transpose by sorting. `weights`
// [nnz] float32 or undefined, as build() passes them.
template <typename Offset, typename Policy>
Adjacency assemble_pattern(const Policy& policy, const Csr& pattern, const Tensor& weights,
                           const PrepareOptions& options, Device device) {
  const int64_t n = pattern.num_rows;
  Adjacency adjacency;
  adjacency.csr = pattern;
  const Offset* indptr = pattern.indptr.data<Offset>();
  adjacency.csr.row_order = row_order(policy, indptr, n, device);
  const PatternEntries<Offset> entries{indptr, pattern.indices.data<int32_t>(), n};
  assign_weights(policy, adjacency, entries, weights, options, indptr, device);
  if (!share_symmetric_transpose<Policy, Offset>(policy, adjacency, entries, options, device)) {
    const Tensor keys = pattern_keys<Offset>(policy, pattern, device);
    transpose_by_sort<Policy, Offset>(policy, adjacency, key_data(keys), options, device);
  }
  return adjacency;
}

}  // namespace sgnn::graph_io::csr_builder
