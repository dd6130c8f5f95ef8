// adjacency_from_pattern on the host (csr_builder::assemble_pattern with
// Thrust's OpenMP policy; CUDA devices go to adjacency_from_pattern_cuda) and
// the pattern check the adjacency cache runs before trusting a file.
#ifndef __CUDACC__
// Thrust's "device" system in this host-only file is OpenMP (as in prepare.cpp).
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif
// See prepare.cpp: a false positive inside Thrust's sequential helpers.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <thrust/system/omp/execution_policy.h>

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

}  // namespace

void check_sorted_pattern(const Csr& pattern, const std::string& where) {
  const int64_t n = pattern.num_rows;
  const int64_t nnz = pattern.nnz;
  const bool shapes = n >= 0 && n < (int64_t{1} << 31) && pattern.num_cols == n && nnz >= 0 &&
                      pattern.indptr.defined() && pattern.indptr.dtype() == csr_offset_dtype(nnz) &&
                      pattern.indptr.shape() == Shape{n + 1} && pattern.indices.defined() &&
                      pattern.indices.dtype() == DType::Int32 && pattern.indices.shape() == Shape{nnz} &&
                      pattern.indptr.device().is_cpu() && pattern.indices.device().is_cpu();
  if (!shapes) throw IoError(where, 0, "the CSR pattern's sections do not fit together (shapes or dtypes)");
  const int32_t* indices = pattern.indices.data<int32_t>();
  const bool ok = pattern.indptr.dtype() == DType::Int64
                      ? rows_sorted_and_in_range(pattern.indptr.data<int64_t>(), indices, n, nnz)
                      : rows_sorted_and_in_range(pattern.indptr.data<int32_t>(), indices, n, nnz);
  if (!ok) {
    throw IoError(where, 0,
                  "the CSR pattern is not a sorted, duplicate-free pattern (offsets not from 0 to nnz and "
                  "non-decreasing, or a row's columns not increasing and < num_nodes)");
  }
}

Adjacency adjacency_from_pattern(const Csr& pattern, const Tensor& weights, Normalization normalization,
                                 Device device) {
  require_available(device);
  SGNN_CHECK(!weights.defined() || (weights.dtype() == DType::Float32 && weights.shape() == Shape{pattern.nnz}),
             "adjacency_from_pattern: weights must be [", pattern.nnz, "] float32, got ",
             weights.defined() ? shape_str(weights.shape()) : std::string("undefined"));
  Csr here = pattern.to(device);
  const Tensor here_weights = weights.defined() ? weights.to(device) : Tensor();
  PrepareOptions options;
  options.normalization = normalization;
  options.device = device;
  if (device.is_cuda()) {
#ifdef SGNN_WITH_CUDA
    return adjacency_from_pattern_cuda(here, here_weights, options);
#endif
  }
  if (csr_offset_dtype(pattern.nnz) == DType::Int32) {
    return csr_builder::assemble_pattern<int32_t>(thrust::omp::par, here, here_weights, options, device);
  }
  return csr_builder::assemble_pattern<int64_t>(thrust::omp::par, here, here_weights, options, device);
}

}  // namespace sgnn::graph_io
