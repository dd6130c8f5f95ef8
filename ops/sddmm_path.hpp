// Which CUDA kernel computes sddmm_dot on a graph (ops/cuda/sddmm*.cu):
//   Segments   one subwarp per work segment of the plan (Sputnik's SDDMM),
//              several segments per warp: best for short rows
//   DenseRows  one warp per segment, x[row] kept in registers for the whole
//              segment, Y rows streamed several at a time: for long rows
//              (ops/cuda/sddmm_dense_rows.cu); widths up to
//              kDenseRowsMaxFeatures per head
// choose_sddmm_path decides from the graph's cached plan (mean entries per
// work segment) and the width; force_sddmm_path overrides that choice
// process-wide (tests cover both kernels on one graph, bench_sparse compares
// them). Thread safe; read per call. Both kernels write the same function.
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

enum class SddmmPath { Auto, Segments, DenseRows };

// Mean entries per work segment from which DenseRows is chosen: one warp
// walks ≥ 128 entries per x row it loads, so its 32 lanes stay busy.
inline constexpr double kDenseRowsMinMeanSegment = 128.0;
// Widest per-head feature count DenseRows handles (its per-lane registers).
inline constexpr int64_t kDenseRowsMaxFeatures = 512;

// Auto returns to the plan's choice.
void force_sddmm_path(SddmmPath path);
SddmmPath forced_sddmm_path();

// Forces `path` for its lifetime, then restores the path forced before.
class ScopedSddmmPath {
 public:
  explicit ScopedSddmmPath(SddmmPath path) : previous_(forced_sddmm_path()) { force_sddmm_path(path); }
  ~ScopedSddmmPath() { force_sddmm_path(previous_); }
  ScopedSddmmPath(const ScopedSddmmPath&) = delete;
  ScopedSddmmPath& operator=(const ScopedSddmmPath&) = delete;

 private:
  SddmmPath previous_;
};

// Segments or DenseRows (never Auto): the forced path if any, else by the
// plan; DenseRows only where it exists (features per head in
// 1..kDenseRowsMaxFeatures), even when forced.
SddmmPath choose_sddmm_path(const SparsePlan& plan, int64_t features);

// "auto", "segments", "dense-rows"; parse_sddmm_path throws InvalidArgument
// on any other name.
std::string_view sddmm_path_name(SddmmPath path);
SddmmPath parse_sddmm_path(std::string_view name);

}  // namespace sgnn::ops
