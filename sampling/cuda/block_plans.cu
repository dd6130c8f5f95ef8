// Launch plans of fresh CSRs on the GPU (see block_plans.hpp): the plan
// ops::sparse_plan builds on the host (ops/sparse_plan.cpp,
// ops/sparse_segments.cpp), computed with a stable radix sort and scans so
// that a block's SpMM never waits for a host copy of its indptr.
#include <limits>

#include "ops/sparse_plan.hpp"
#include "ops/sparse_segments.hpp"
#include "sampling/cuda/block_plans.hpp"
#include "sampling/cuda/sampling_device.cuh"

namespace sgnn::sampling {

namespace {

using namespace cuda_detail;

// Per row: its length as a descending sort key, its split segments and whether it is split.
__global__ void row_keys_kernel(const int32_t* indptr, int64_t rows, int64_t segment_length, uint32_t* keys,
                                int32_t* order, int64_t* segments, int32_t* split) {
  for (int64_t r = grid_stride_begin(); r < rows; r += grid_stride_step()) {
    const int64_t length = indptr[r + 1] - indptr[r];
    keys[r] = std::numeric_limits<uint32_t>::max() - static_cast<uint32_t>(length);
    order[r] = static_cast<int32_t>(r);
    const bool is_split = length > segment_length;
    segments[r] = is_split ? (length + segment_length - 1) / segment_length : 0;
    split[r] = is_split ? 1 : 0;
  }
}

// counts = {split rows, split segments, longest row} (exclusive scans in, last row added).
__global__ void plan_counts_kernel(const int32_t* indptr, int64_t rows, const int64_t* segment_offsets,
                                   const int64_t* segments, const int32_t* split_rank, const int32_t* split,
                                   const int32_t* order, int64_t* counts) {
  if (rows == 0) {
    counts[0] = counts[1] = counts[2] = 0;
    return;
  }
  counts[0] = split_rank[rows - 1] + split[rows - 1];
  counts[1] = segment_offsets[rows - 1] + segments[rows - 1];
  counts[2] = indptr[order[0] + 1] - indptr[order[0]];
}

__global__ void split_segments_kernel(const int32_t* indptr, int64_t rows, int64_t segment_length,
                                      const int64_t* segment_offsets, const int32_t* split_rank, const int32_t* split,
                                      int32_t* split_rows, int64_t* split_offsets, int32_t* segment_row,
                                      int64_t* segment_begin) {
  for (int64_t r = grid_stride_begin(); r < rows; r += grid_stride_step()) {
    if (split[r] == 0) continue;
    const int32_t rank = split_rank[r];
    split_rows[rank] = static_cast<int32_t>(r);
    split_offsets[rank] = segment_offsets[r];
    int64_t segment = segment_offsets[r];
    for (int64_t start = indptr[r]; start < indptr[r + 1]; start += segment_length, ++segment) {
      segment_row[segment] = static_cast<int32_t>(r);
      segment_begin[segment] = start;
    }
  }
}

__global__ void whole_rows_kernel(const int32_t* indptr, const int32_t* order, int64_t rows, int64_t split_rows,
                                  int64_t split_segments, int64_t* split_offsets, int32_t* segment_row,
                                  int64_t* segment_begin) {
  for (int64_t p = grid_stride_begin(); p < rows - split_rows; p += grid_stride_step()) {
    const int32_t row = order[split_rows + p];
    segment_row[split_segments + p] = row;
    segment_begin[split_segments + p] = indptr[row];
  }
  if (grid_stride_begin() == 0) split_offsets[split_rows] = split_segments;
}

__global__ void entry_rows_kernel(const int32_t* indptr, int64_t rows, int32_t* entry_row) {
  for (int64_t r = warp_begin(); r < rows; r += warp_step()) {
    for (int64_t e = indptr[r] + lane_id(); e < indptr[r + 1]; e += 32) entry_row[e] = static_cast<int32_t>(r);
  }
}

struct Pending {
  std::shared_ptr<ops::SparsePlan> plan;
  Tensor segment_offsets, segments, split_rank, split;
};

}  // namespace

void register_device_plans(const std::vector<PlanRequest>& requests, const WorkContext& context) {
  const cudaStream_t stream = stream_of(context);
  const Device device = context.device;
  Tensor counts = context.allocate({static_cast<int64_t>(3 * requests.size())}, DType::Int64);
  std::vector<Pending> pending;
  for (std::size_t q = 0; q < requests.size(); ++q) {
    const Csr& csr = *requests[q].csr;
    check_dtype(csr.indptr, DType::Int32, "register_device_plans", "csr.indptr");
    const int64_t rows = csr.num_rows;
    auto plan = std::make_shared<ops::SparsePlan>();
    plan->indptr = csr.indptr;
    plan->num_rows = rows;
    plan->nnz = csr.nnz;
    plan->mean_row_length = rows == 0 ? 0.0 : static_cast<double>(csr.nnz) / static_cast<double>(rows);
    plan->segment_length = ops::choose_segment_length(plan->mean_row_length, csr.nnz);
    Pending p{plan, context.allocate({rows}, DType::Int64), context.allocate({rows}, DType::Int64),
              context.allocate({rows}, DType::Int32), context.allocate({rows}, DType::Int32)};
    const Tensor keys = context.allocate({rows}, DType::Int32);
    const Tensor sorted_keys = context.allocate({rows}, DType::Int32);
    const Tensor identity = context.allocate({rows}, DType::Int32);
    plan->row_order = context.allocate({rows}, DType::Int32);
    const int32_t* indptr = csr.indptr.data<int32_t>();
    if (rows > 0) {
      const LaunchShape shape = elementwise_launch_shape(rows, device);
      row_keys_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
          indptr, rows, plan->segment_length, reinterpret_cast<uint32_t*>(keys.data<int32_t>()),
          identity.data<int32_t>(), p.segments.data<int64_t>(), p.split.data<int32_t>());
      SGNN_CUDA_CHECK_LAUNCH("row_keys_kernel");
      // Stable: rows of one length stay in id order, as the host plan's stable_sort.
      run_cub(context, "DeviceRadixSort::SortPairs (row order)", [&](void* storage, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(storage, bytes, reinterpret_cast<const uint32_t*>(keys.data<int32_t>()),
                                               reinterpret_cast<uint32_t*>(sorted_keys.data<int32_t>()),
                                               identity.data<int32_t>(), plan->row_order.data<int32_t>(), rows, 0, 32,
                                               stream);
      });
      run_cub(context, "DeviceScan::ExclusiveSum (segments)", [&](void* storage, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(storage, bytes, p.segments.data<int64_t>(),
                                             p.segment_offsets.data<int64_t>(), rows, stream);
      });
      run_cub(context, "DeviceScan::ExclusiveSum (split rows)", [&](void* storage, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(storage, bytes, p.split.data<int32_t>(), p.split_rank.data<int32_t>(),
                                             rows, stream);
      });
    }
    plan_counts_kernel<<<1, 1, 0, stream>>>(indptr, rows, p.segment_offsets.data<int64_t>(),
                                             p.segments.data<int64_t>(), p.split_rank.data<int32_t>(),
                                             p.split.data<int32_t>(), plan->row_order.data<int32_t>(),
                                             counts.data<int64_t>() + 3 * q);
    SGNN_CUDA_CHECK_LAUNCH("plan_counts_kernel");
    if (csr.nnz <= ops::kEntryRowsMaxEntries) {
      plan->entry_row = requests[q].entry_row;
      if (!plan->entry_row.defined()) {
        plan->entry_row = context.allocate({csr.nnz}, DType::Int32);
        if (rows > 0) {
          const LaunchShape shape = warp_launch_shape(rows, device);
          entry_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(indptr, rows, plan->entry_row.data<int32_t>());
          SGNN_CUDA_CHECK_LAUNCH("entry_rows_kernel");
        }
      }
    }
    pending.push_back(std::move(p));
  }
  const std::vector<int64_t> host = context.read(counts);
  for (std::size_t q = 0; q < requests.size(); ++q) {
    Pending& p = pending[q];
    ops::SparsePlan& plan = *p.plan;
    const int32_t* indptr = requests[q].csr->indptr.data<int32_t>();
    plan.num_split_rows = host[3 * q];
    plan.split_segments = host[3 * q + 1];
    plan.max_row_length = host[3 * q + 2];
    plan.segments = plan.split_segments + plan.num_rows - plan.num_split_rows;
    plan.split_rows = context.allocate({plan.num_split_rows}, DType::Int32);
    plan.split_offsets = context.allocate({plan.num_split_rows + 1}, DType::Int64);
    plan.segment_row = context.allocate({plan.segments}, DType::Int32);
    plan.segment_begin = context.allocate({plan.segments}, DType::Int64);
    if (plan.num_split_rows > 0) {
      const LaunchShape shape = elementwise_launch_shape(plan.num_rows, device);
      split_segments_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
          indptr, plan.num_rows, plan.segment_length, p.segment_offsets.data<int64_t>(), p.split_rank.data<int32_t>(),
          p.split.data<int32_t>(), plan.split_rows.data<int32_t>(), plan.split_offsets.data<int64_t>(),
          plan.segment_row.data<int32_t>(), plan.segment_begin.data<int64_t>());
      SGNN_CUDA_CHECK_LAUNCH("split_segments_kernel");
    }
    const LaunchShape shape = elementwise_launch_shape(std::max<int64_t>(plan.num_rows - plan.num_split_rows, 1), device);
    whole_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        indptr, plan.row_order.data<int32_t>(), plan.num_rows, plan.num_split_rows, plan.split_segments,
        plan.split_offsets.data<int64_t>(), plan.segment_row.data<int32_t>(), plan.segment_begin.data<int64_t>());
    SGNN_CUDA_CHECK_LAUNCH("whole_rows_kernel");
    ops::register_sparse_plan(p.plan);
  }
}

}  // namespace sgnn::sampling
