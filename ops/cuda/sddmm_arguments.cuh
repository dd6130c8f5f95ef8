// The kernel arguments shared by the SDDMM kernels (ops/cuda/sddmm.cu: the
// Segments path and sddmm_add; ops/cuda/sddmm_dense_rows.cu: the DenseRows
// path; ops/cuda/sddmm_edges.cu: the Edges path; ops/cuda/sddmm_edge_groups.cu:
// the EdgeGroups path) and the launches of the DenseRows, Edges and EdgeGroups kernels.
#pragma once

#include <cstdint>

#include "core/csr.hpp"
#include "ops/cuda/sparse_device.cuh"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops::sddmm_cuda {

struct SddmmArguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices;
  int64_t nnz;
  const int32_t* entry_row;  // null when the plan has none
  const int32_t* segment_row;
  const int64_t* segment_begin;
  int64_t segments;
  int64_t segment_length;
  int heads;
  int64_t features;  // per head
  const float* x;
  const float* y;
  float* out;
};

inline SddmmArguments arguments_of(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features,
                                   const Tensor& x, const Tensor& y, Tensor& out) {
  return {sparse_cuda::offsets_of(csr.indptr),
          csr.indices.data<int32_t>(),
          csr.nnz,
          plan.entry_row.defined() ? plan.entry_row.data<int32_t>() : nullptr,
          plan.segment_row.data<int32_t>(),
          plan.segment_begin.data<int64_t>(),
          plan.segments,
          plan.segment_length,
          static_cast<int>(heads),
          features,
          x.data<float>(),
          y.data<float>(),
          out.data<float>()};
}

// Whether the float4 kernels may run: whole float4 per head, 16-byte bases.
inline bool vectorizable(int64_t features, const Tensor& x, const Tensor& y) {
  return features % 4 == 0 && sparse_cuda::aligned16(x.raw_data()) && sparse_cuda::aligned16(y.raw_data());
}

// sddmm_dot by the DenseRows kernel; features per head in
// 1..kDenseRowsMaxFeatures (ops/sddmm_path.hpp), vectorized per vectorizable().
void launch_dense_rows(const SddmmArguments& args, bool vectorized, Device device);

// sddmm_dot by the Edges kernel; needs args.entry_row.
void launch_edges(const SddmmArguments& args, bool vectorized, Device device);

// sddmm_dot by the EdgeGroups kernel with groups of `group_lanes` lanes (a
// power of two in 1..32); `rows` is the CSR's row count.
void launch_edge_groups(const SddmmArguments& args, int64_t rows, int group_lanes, bool vectorized, Device device);

}  // namespace sgnn::ops::sddmm_cuda
