// Thrust's default device system would pull in the CUDA headers; this file
// runs the build steps with the OpenMP host policy only.
#ifndef THRUST_DEVICE_SYSTEM
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif

#include "graph_io/hrpb_builder.hpp"

#include <chrono>
#include <memory>

#include <thrust/system/omp/execution_policy.h>

#include "core/hrpb_schedule.hpp"
#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/hrpb_builder.inl"

#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#include "graph_io/cuda/hrpb_builder_device.hpp"
#endif

namespace sgnn::graph_io {

namespace {

constexpr int64_t kHostAssumedConcurrentBlocks = 132 * 8;  // an H100: 132 SMs, 8 resident blocks each

int64_t concurrent_blocks_for(Device device, const HrpbOptions& options) {
  if (options.concurrent_blocks > 0) return options.concurrent_blocks;
#ifdef SGNN_WITH_CUDA
  if (device.is_cuda()) return int64_t{cuda::properties(device).multiProcessorCount} * 8;
#endif
  (void)device;
  return kHostAssumedConcurrentBlocks;
}

HrpbStatistics statistics_of(const detail::HrpbBuffers& buffers, const std::vector<int32_t>& row_ptr,
                             const Csr& csr) {
  HrpbStatistics s;
  s.nnz = csr.nnz;
  s.num_panels = buffers.num_panels;
  for (std::size_t p = 0; p + 1 < row_ptr.size(); ++p) s.empty_panels += row_ptr[p] == row_ptr[p + 1] ? 1 : 0;
  s.active_columns = buffers.active_columns;
  s.num_blocks = buffers.num_blocks;
  s.num_bricks = buffers.num_bricks;
  s.hrpb_bytes = static_cast<int64_t>(buffers.blocked_row_ptr.nbytes() + buffers.active_cols.nbytes() +
                                      buffers.size_ptr.nbytes() + buffers.packed_blocks.nbytes());
  s.csr_bytes = (csr.num_rows + 1) * 4 + csr.nnz * 8;
  return s;
}

}  // namespace

Hrpb build_hrpb(const Csr& csr, const Tensor& values, const HrpbOptions& options) {
  SGNN_CHECK(csr.indptr.defined() && csr.indices.defined(), "build_hrpb: the CSR has no indptr or indices");
  SGNN_CHECK(csr.nnz < (int64_t{1} << 31), "build_hrpb: ", csr.nnz,
             " non-zeros; the HRPB uses int32 block offsets, so at most 2^31 - 1");
  SGNN_CHECK(csr.indices.dtype() == DType::Int32 && csr.indices.numel() == csr.nnz &&
                 csr.indptr.numel() == csr.num_rows + 1,
             "build_hrpb: the CSR's indptr/indices do not match num_rows ", csr.num_rows, " and nnz ", csr.nnz);
  if (values.defined()) {
    check_dtype(values, DType::Float32, "build_hrpb", "values");
    SGNN_CHECK(values.dim() == 1 && values.numel() == csr.nnz, "build_hrpb: values must have shape [", csr.nnz,
               "] (one weight per non-zero), got ", shape_str(values.shape()));
    SGNN_CHECK(values.device() == csr.device(), "build_hrpb: values are on ", values.device().str(),
               " but the CSR is on ", csr.device().str());
  }
  detail::HrpbBuffers buffers;
  if (csr.device().is_cuda()) {
#ifdef SGNN_WITH_CUDA
    buffers = detail::build_hrpb_buffers_on_device(csr, values);
#else
    throw InvalidArgument("build_hrpb: the CSR is on a CUDA device, but this build has no CUDA backend");
#endif
  } else {
    buffers = detail::build_hrpb_buffers(thrust::omp::par, csr, values);
  }

  const std::vector<int32_t> row_ptr = buffers.blocked_row_ptr.to_vector<int32_t>();
  Hrpb out;
  out.num_rows = csr.num_rows;
  out.num_cols = csr.num_cols;
  out.nnz = csr.nnz;
  out.num_panels = buffers.num_panels;
  out.num_blocks = buffers.num_blocks;
  out.max_block_words = buffers.max_block_words;
  out.blocked_row_ptr = buffers.blocked_row_ptr;
  out.active_cols = buffers.active_cols;
  out.size_ptr = buffers.size_ptr;
  out.packed_blocks = buffers.packed_blocks;
  out.schedule = plan_hrpb_schedule(row_ptr, {options.load_balance, concurrent_blocks_for(csr.device(), options)});
  if (csr.device().is_cuda()) {
    HrpbSchedule& s = out.schedule;
    s.virtual_panel = s.virtual_panel.to(csr.device());
    s.virtual_block_ptr = s.virtual_block_ptr.to(csr.device());
    s.virtual_slot = s.virtual_slot.to(csr.device());
    s.split_panel = s.split_panel.to(csr.device());
    s.split_slot_ptr = s.split_slot_ptr.to(csr.device());
  }
  out.deterministic = options.deterministic;
  out.statistics = statistics_of(buffers, row_ptr, csr);
  return out;
}

HrpbAdjacency build_hrpb(const Adjacency& adjacency, const HrpbOptions& options) {
  // The layout packs the weights themselves: a symmetric scale's values are
  // made for it (and freed once packed).
  Hrpb forward = build_hrpb(adjacency.csr, stored_weights(adjacency), options);
  // A symmetric graph whose transpose shares A's arrays and values (graph_io
  // builds it so) is the same matrix: one layout serves both directions, as
  // it does with a symmetric scale (entry (r, c) weighs s[r] · s[c] in both).
  const bool same_matrix = adjacency.transpose.indices.shares_storage_with(adjacency.csr.indices) &&
                           adjacency.transpose.indptr.shares_storage_with(adjacency.csr.indptr) &&
                           (adjacency.values.defined() ? adjacency.transpose_values.shares_storage_with(adjacency.values)
                                                       : !adjacency.transpose_values.defined());
  if (same_matrix) return {forward, forward};
  return {forward, build_hrpb(adjacency.transpose, stored_weights(adjacency, /*transpose=*/true), options)};
}

double attach_hrpb(Adjacency& adjacency, SpmmFormat format, const HrpbOptions& options) {
  adjacency.spmm_format = format;
  if (format == SpmmFormat::Csr || adjacency.hrpb) return 0.0;
  SGNN_CHECK(!adjacency.values.defined() || adjacency.values.dim() == 1,
             "attach_hrpb: HRPB holds one weight per edge; adjacency.values has shape ",
             shape_str(adjacency.values.shape()));
  memory::synchronize(adjacency.device());
  const auto start = std::chrono::steady_clock::now();
  adjacency.hrpb = std::make_shared<const HrpbAdjacency>(build_hrpb(adjacency, options));
  memory::synchronize(adjacency.device());
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace sgnn::graph_io
