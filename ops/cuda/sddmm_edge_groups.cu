// The EdgeGroups path of sddmm_dot (ops/sddmm_path.hpp), after dgSPARSE's
// edge-balanced SDDMM: the entries in CSR order are cut into runs of kGroup
// consecutive entries, and a group of kGroup lanes takes one run, every head:
//  - perfect balance whatever the row lengths: a 20K-entry hub row and a
//    stencil's 9-entry rows cost the same per entry;
//  - each lane sums its slice of the features for every entry of the run,
//    then one reduce-scatter gives lane l the dot product of entry l: one
//    shuffle per entry instead of log2(kGroup), and a contiguous store;
//  - the group finds the row of its first entry with a (kGroup+1)-ary search
//    over the row offsets (each step, the lanes test kGroup pivots and a
//    ballot narrows the range: log_{kGroup+1}(rows) dependent loads); then
//    lane k stages entry k's row and column, which the others read by
//    shuffle, so that no entry's loads wait on another's;
// Every output is written once, in a fixed order of additions: deterministic.
#include <cstdint>

#include "core/error.hpp"
#include "ops/cuda/sddmm_arguments.cuh"
#include "ops/cuda/sparse_device.cuh"

namespace sgnn::ops::sddmm_cuda {

namespace {

// The row holding entry `entry`: the last row whose offset is <= entry (rows
// may be empty). All kGroup lanes of the group call it and get the same row.
// Each step the lanes test the pivots low + step·(lane + 1), which increase
// with the lane: since the offsets do not decrease, the pivots at or before
// the entry are a prefix, and their count moves both ends of the range. The
// first pivot is always inside (low, high), so every step makes progress.
template <int kGroup>
__device__ __forceinline__ int64_t row_of_entry(sparse_cuda::Offsets indptr, int64_t rows, int64_t entry,
                                               unsigned mask, int lane) {
  int64_t low = 0;      // indptr[low] <= entry
  int64_t high = rows;  // indptr[high] > entry (high = rows: the end, where the offset is nnz > entry)
  const unsigned group_base = (threadIdx.x & 31u) & ~static_cast<unsigned>(kGroup - 1);
  while (high - low > 1) {
    const int64_t step = (high - low + kGroup) / (kGroup + 1);  // >= 1, and low + step < high
    const int64_t pivot = low + step * (lane + 1);
    const bool at_or_before = pivot < high && indptr[pivot] <= entry;
    const unsigned ballot = __ballot_sync(mask, at_or_before) >> group_base;
    const int count = __popc(kGroup == 32 ? ballot : ballot & ((1u << kGroup) - 1u));
    const int64_t first_after = low + step * (count + 1);  // the first pivot past the entry, if inside
    low += step * count;
    if (first_after < high) high = first_after;
  }
  return low;
}

// Reduce-scatter over the kGroup lanes of a group: lane l starts with
// kGroup partial sums (one per entry) and ends with the total of entry l in
// values[0]. Each stage a lane keeps the half of its values whose index bit
// matches its own lane bit and adds its partner's copy of that half: kGroup - 1
// shuffles for kGroup dot products, where a sum per entry would take
// log2(kGroup) each (5 per entry for 32 lanes).
template <int kGroup>
__device__ __forceinline__ void reduce_scatter(float (&values)[kGroup], int lane, unsigned mask) {
#pragma unroll
  for (int half = kGroup / 2; half >= 1; half /= 2) {
    const bool upper = (lane & half) != 0;
#pragma unroll
    for (int k = 0; k < half; ++k) {
      const float give = upper ? values[k] : values[k + half];
      const float keep = upper ? values[k + half] : values[k];
      values[k] = keep + __shfl_xor_sync(mask, give, half, kGroup);
    }
  }
}

template <int kVec, int kGroup, int kSlices, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_edge_groups_kernel(SddmmArguments<T> args,
                                                                                      int64_t rows) {
  const unsigned mask = sparse_cuda::subwarp_mask<kGroup>();
  const int lane = static_cast<int>(threadIdx.x) & (kGroup - 1);
  const int64_t width = args.heads * args.features;
  const int64_t groups = (args.nnz + kGroup - 1) / kGroup;
  for (int64_t group = sparse_cuda::global_subwarp(kGroup); group < groups; group += sparse_cuda::subwarp_count(kGroup)) {
    const int64_t first = group * kGroup;
    const int64_t last = first + kGroup < args.nnz ? first + kGroup : args.nnz;
    // Lane k stages entry first + k: its column (one coalesced load for the
    // run) and its row (a short walk from the run's first row), so that the
    // loop below issues every entry's loads without waiting on the previous.
    // Once for all heads: at 8 heads of 8 features a search per (run, head)
    // took 196 ms for 109M entries in groups of one lane (docs/kernels.md).
    const int64_t first_row = row_of_entry<kGroup>(args.indptr, rows, first, mask, lane);
    const int64_t mine = first + lane < last ? first + lane : first;
    int64_t my_row = first_row;
    while (mine >= args.indptr[my_row + 1]) ++my_row;
    // 32-bit node ids: one shuffle each where 64-bit offsets took two.
    const auto my_x = static_cast<int32_t>(my_row);
    const int32_t my_y = __ldg(args.indices + mine);
    for (int64_t head = 0; head < args.heads; ++head) {
      const int64_t head_base = head * args.features;
      // Entry k's partial dot product over this lane's features (0 past the last entry).
      float partial[kGroup];
#pragma unroll
      for (int k = 0; k < kGroup; ++k) {
        const T* x_row = row_of(args.x, __shfl_sync(mask, my_x, k, kGroup), width) + head_base;
        const T* y_row = row_of(args.y, __shfl_sync(mask, my_y, k, kGroup), width) + head_base;
        const float sum = lane_dot<kVec, kGroup, kSlices>(x_row, y_row, lane, args.features);
        partial[k] = first + k < last ? sum : 0.0f;
      }
      reduce_scatter<kGroup>(partial, lane, mask);
      if (first + lane < last) args.out.store((first + lane) * args.heads + head, partial[0]);
    }
  }
}

template <int kVec, int kGroup, int kSlices, typename T>
void launch_slices(const SddmmArguments<T>& args, int64_t rows, Device device) {
  const int64_t groups = (args.nnz + kGroup - 1) / kGroup;  // each takes every head of its run
  const unsigned blocks = sparse_cuda::subwarp_blocks(groups, kGroup, device);
  sddmm_edge_groups_kernel<kVec, kGroup, kSlices>
      <<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args, rows);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_edge_groups_kernel");
}

// A lane's slices a head, rounded up to 1, 2 or 4 (lane_dot: every width
// the timed group sizes give up to 128 vectors a head), else counted at run time.
template <int kVec, int kGroup, typename T>
void launch(const SddmmArguments<T>& args, int64_t rows, Device device) {
  const int64_t slices = (args.features / kVec + kGroup - 1) / kGroup;
  if (slices <= 1) return launch_slices<kVec, kGroup, 1>(args, rows, device);
  if (slices <= 2) return launch_slices<kVec, kGroup, 2>(args, rows, device);
  if (slices <= 4) return launch_slices<kVec, kGroup, 4>(args, rows, device);
  launch_slices<kVec, kGroup, 0>(args, rows, device);
}

template <int kVec, typename T>
void launch_group(int group, const SddmmArguments<T>& args, int64_t rows, Device device) {
  switch (group) {
    case 1: return launch<kVec, 1>(args, rows, device);
    case 2: return launch<kVec, 2>(args, rows, device);
    case 4: return launch<kVec, 4>(args, rows, device);
    case 8: return launch<kVec, 8>(args, rows, device);
    case 16: return launch<kVec, 16>(args, rows, device);
    default: return launch<kVec, 32>(args, rows, device);
  }
}

}  // namespace

template <typename T>
void launch_edge_groups(const SddmmArguments<T>& args, int64_t rows, int group_lanes, bool vectorized, Device device) {
  SGNN_CHECK(group_lanes >= 1 && group_lanes <= 32 && (group_lanes & (group_lanes - 1)) == 0,
             "sddmm_dot: EdgeGroups lanes must be a power of two in 1..32, got ", group_lanes);
  if (vectorized) launch_group<kVectorElements<T>>(group_lanes, args, rows, device);
  else launch_group<1>(group_lanes, args, rows, device);
}

template void launch_edge_groups(const SddmmArguments<float>&, int64_t, int, bool, Device);
template void launch_edge_groups(const SddmmArguments<bfloat16>&, int64_t, int, bool, Device);

}  // namespace sgnn::ops::sddmm_cuda
