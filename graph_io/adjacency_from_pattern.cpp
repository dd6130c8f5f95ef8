// adjacency_from_pattern on the host (csr_builder's functions with Thrust's
// OpenMP policy and a counting-sort transpose; CUDA devices go to
// adjacency_from_pattern_cuda, which runs csr_builder::assemble_pattern) and
// the pattern check the adjacency cache runs before trusting a file.
#ifndef __CUDACC__
// Thrust's "device" system in this host-only file is OpenMP (as in prepare.cpp).
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif
// See prepare.cpp: a false positive inside Thrust's sequential helpers.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <thrust/system/omp/execution_policy.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/adjacency_from_pattern_backend.hpp"
#include "graph_io/csr_builder.hpp"

namespace sgnn::graph_io {

namespace {

template <typename Offset>
bool rows_sorted_and_in_range(const Offset* indptr, const int32_t* indices, int64_t n, int64_t nnz) {
  bool bad = indptr[0] != 0 || static_cast<int64_t>(indptr[n]) != nnz;
  if (bad) return false;
#pragma omp parallel for schedule(static) reduction(|| : bad)
  for (int64_t row = 0; row < n; ++row) bad = bad || indptr[row] > indptr[row + 1];
  if (bad) return false;
  // Rows after the offsets: every row is inside [0, nnz] now.
#pragma omp parallel for schedule(dynamic, 4096) reduction(|| : bad)
  for (int64_t row = 0; row < n; ++row) {
    int64_t previous = -1;
    for (auto k = static_cast<int64_t>(indptr[row]); k < static_cast<int64_t>(indptr[row + 1]); ++k) {
      const int64_t col = indices[k];
      bad = bad || col <= previous || col >= n;
      previous = col;
    }
  }
  return !bad;
}

// Strictly increasing RowOrderKey along `order` (in range): the one order
// prepare's sort of those distinct keys gives.
template <typename Offset>
bool is_row_order(const Offset* indptr, const int32_t* order, int64_t n) {
  const csr_builder::RowOrderKey<Offset> key{indptr, n};
  bool bad = false;
#pragma omp parallel for schedule(static) reduction(|| : bad)
  for (int64_t i = 0; i < n; ++i) {
    const int32_t row = order[i];
    bad = bad || row < 0 || row >= n || (i > 0 && (order[i - 1] < 0 || order[i - 1] >= n || key(order[i - 1]) >= key(row)));
  }
  return !bad;
}

// Entry k of Aᵀ, (c, r), maps to an entry of A's row r whose column is c.
// With both patterns duplicate-free and of equal size, that makes the map a
// bijection and Aᵀ the transpose.
template <typename Offset>
bool is_transpose_map(const Csr& csr, const Csr& transpose, const Offset* map) {
  const Offset* indptr = csr.indptr.data<Offset>();
  const int32_t* cols = csr.indices.data<int32_t>();
  const Offset* transpose_indptr = transpose.indptr.data<Offset>();
  const int32_t* transpose_rows = transpose.indices.data<int32_t>();
  bool bad = false;
#pragma omp parallel for schedule(dynamic, 4096) reduction(|| : bad)
  for (int64_t c = 0; c < transpose.num_rows; ++c) {
    for (auto k = static_cast<int64_t>(transpose_indptr[c]); k < static_cast<int64_t>(transpose_indptr[c + 1]); ++k) {
      const int32_t r = transpose_rows[k];
      const auto entry = static_cast<int64_t>(map[k]);
      bad = bad || entry < static_cast<int64_t>(indptr[r]) || entry >= static_cast<int64_t>(indptr[r + 1]) ||
            cols[entry] != c;
    }
  }
  return !bad;
}

// The host assemble of a pattern: the same row orders and values as
// csr_builder::assemble (its own functions), a symmetric pattern's transpose
// shared as there, else the transpose by a counting sort (O(nnz)) instead of
// sorting every entry again, which is the slow part
// on the host. A transpose of a duplicate-free pattern is unique, so the
// result is bitwise what assemble makes (tests/graph_io/adjacency_cache_test.cpp).
template <typename Offset>
Adjacency assemble_on_host(const Csr& pattern, const Tensor& weights, const PrepareOptions& options) {
  const auto& policy = thrust::omp::par;
  const Device cpu = Device::cpu();
  const int64_t n = pattern.num_rows;
  const int64_t nnz = pattern.nnz;
  const Offset* indptr = pattern.indptr.data<Offset>();
  const int32_t* cols = pattern.indices.data<int32_t>();
  const Tensor keys = csr_builder::pattern_keys<Offset>(policy, pattern, cpu);
  const csr_builder::Key* key = csr_builder::key_data(keys);

  Adjacency adjacency;
  adjacency.csr = pattern;
  adjacency.csr.row_order = csr_builder::row_order(policy, indptr, n, cpu);
  const csr_builder::KeyEntries entries{key};
  csr_builder::assign_weights(policy, adjacency, entries, weights, options, indptr, cpu);
  if (csr_builder::share_symmetric_transpose<decltype(policy), Offset>(policy, adjacency, entries, options, cpu)) {
    return adjacency;
  }

  // Column counts, then offsets; entries scattered to their column with an
  // atomic cursor (any order), then each column sorted by entry id, which is
  // the order of rows because the pattern is sorted by row.
  Csr& transpose = adjacency.transpose;
  transpose.num_rows = transpose.num_cols = n;
  transpose.nnz = nnz;
  transpose.indptr = Tensor::zeros({n + 1}, dtype_of<Offset>(), cpu);
  Offset* offsets = transpose.indptr.data<Offset>();
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < nnz; ++k) std::atomic_ref<Offset>(offsets[cols[k] + 1]).fetch_add(1, std::memory_order_relaxed);
  for (int64_t c = 0; c < n; ++c) offsets[c + 1] += offsets[c];
  std::vector<Offset> cursor(offsets, offsets + n);
  Offset* map = adjacency.transpose_to_csr.data<Offset>();  // allocated by share_symmetric_transpose
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < nnz; ++k) {
    const Offset slot = std::atomic_ref<Offset>(cursor[static_cast<std::size_t>(cols[k])]).fetch_add(1, std::memory_order_relaxed);
    map[slot] = static_cast<Offset>(k);
  }
  transpose.indices = Tensor::empty({nnz}, DType::Int32, cpu);
  int32_t* rows = transpose.indices.data<int32_t>();
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t c = 0; c < n; ++c) {
    std::sort(map + offsets[c], map + offsets[c + 1]);
    for (Offset slot = offsets[c]; slot < offsets[c + 1]; ++slot) rows[slot] = csr_builder::key_high(key[map[slot]]);
  }
  transpose.row_order = csr_builder::row_order(policy, offsets, n, cpu);
  if (adjacency.values.defined()) {
    adjacency.transpose_values = Tensor::empty({nnz}, DType::Float32, cpu);
    thrust::gather(policy, map, map + nnz, adjacency.values.data<float>(), adjacency.transpose_values.data<float>());
  }
  if (!options.edge_map) adjacency.transpose_to_csr = Tensor();
  return adjacency;
}

}  // namespace

void check_sorted_pattern(const Csr& pattern, const std::string& where) {
  const int64_t n = pattern.num_rows;
  const int64_t nnz = pattern.nnz;
  const bool shapes = n >= 0 && n < (int64_t{1} << 31) && pattern.num_cols == n && nnz >= 0 &&
                      pattern.indptr.defined() && pattern.indptr.dtype() == csr_offset_dtype(nnz) &&
                      pattern.indptr.shape() == Shape{n + 1} && pattern.indices.defined() &&
                      pattern.indices.dtype() == DType::Int32 && pattern.indices.shape() == Shape{nnz} &&
                      pattern.indptr.device() == pattern.indices.device();
  if (!shapes) throw IoError(where, 0, "the CSR pattern's sections do not fit together (shapes or dtypes)");
  bool ok = false;
  if (pattern.indptr.device().is_cuda()) {
#ifdef SGNN_WITH_CUDA
    ok = is_sorted_pattern_cuda(pattern);
#endif
  } else {
    const int32_t* indices = pattern.indices.data<int32_t>();
    ok = pattern.indptr.dtype() == DType::Int64 ? rows_sorted_and_in_range(pattern.indptr.data<int64_t>(), indices, n, nnz)
                                                : rows_sorted_and_in_range(pattern.indptr.data<int32_t>(), indices, n, nnz);
  }
  if (!ok) {
    throw IoError(where, 0,
                  "the CSR pattern is not a sorted, duplicate-free pattern (offsets not from 0 to nnz and "
                  "non-decreasing, or a row's columns not increasing and < num_nodes)");
  }
}

void check_row_order(const Csr& csr, const Tensor& order, const std::string& where) {
  const int64_t n = csr.num_rows;
  const bool fits = order.defined() && order.dtype() == DType::Int32 && order.shape() == Shape{n} &&
                    order.device().is_cpu();
  const bool ok = fits && (csr.indptr.dtype() == DType::Int64
                               ? is_row_order(csr.indptr.data<int64_t>(), order.data<int32_t>(), n)
                               : is_row_order(csr.indptr.data<int32_t>(), order.data<int32_t>(), n));
  if (!ok) throw IoError(where, 0, "a stored row order is not the rows by decreasing length");
}

void check_transpose_map(const Csr& csr, const Csr& transpose, const Tensor& map, const std::string& where) {
  const bool fits = transpose.num_rows == csr.num_cols && transpose.nnz == csr.nnz &&
                    transpose.indptr.dtype() == csr.indptr.dtype() && map.defined() &&
                    map.dtype() == csr_offset_dtype(csr.nnz) && map.shape() == Shape{csr.nnz} && map.device().is_cpu();
  const bool ok = fits && (map.dtype() == DType::Int64 ? is_transpose_map(csr, transpose, map.data<int64_t>())
                                                       : is_transpose_map(csr, transpose, map.data<int32_t>()));
  if (!ok) throw IoError(where, 0, "the stored transpose and its edge map are not those of the pattern");
}

Adjacency adjacency_from_pattern(const Csr& pattern, const Tensor& weights, const PrepareOptions& options) {
  const Device device = options.device;
  require_available(device);
  SGNN_CHECK(!weights.defined() || (weights.dtype() == DType::Float32 && weights.shape() == Shape{pattern.nnz}),
             "adjacency_from_pattern: weights must be [", pattern.nnz, "] float32, got ",
             weights.defined() ? shape_str(weights.shape()) : std::string("undefined"));
  Csr here = pattern.to(device);
  const Tensor here_weights = weights.defined() ? weights.to(device) : Tensor();
  if (device.is_cuda()) {
#ifdef SGNN_WITH_CUDA
    return adjacency_from_pattern_cuda(here, here_weights, options);
#endif
  }
  here.row_order = Tensor();  // assemble_on_host computes it
  if (csr_offset_dtype(pattern.nnz) == DType::Int32) return assemble_on_host<int32_t>(here, here_weights, options);
  return assemble_on_host<int64_t>(here, here_weights, options);
}

Tensor stored_weights(const Adjacency& adjacency, bool transpose) {
  if (adjacency.values.defined()) return transpose ? adjacency.transpose_values : adjacency.values;
  if (!adjacency.symmetric_scale.defined()) return Tensor();
  const Csr& csr = transpose ? adjacency.transpose : adjacency.csr;
  if (csr.device().is_cuda()) {
#ifdef SGNN_WITH_CUDA
    return scaled_values_cuda(csr, adjacency.scale_data());
#endif
  }
  const auto& policy = thrust::omp::par;
  return csr.indptr.dtype() == DType::Int32
             ? csr_builder::scaled_values<int32_t>(policy, csr, adjacency.scale_data(), Device::cpu())
             : csr_builder::scaled_values<int64_t>(policy, csr, adjacency.scale_data(), Device::cpu());
}

}  // namespace sgnn::graph_io
