// The EdgeGroups path of sddmm_dot (ops/sddmm_path.hpp), after dgSPARSE's
// edge-balanced SDDMM: the entries in CSR order are cut into groups of
// kEntries consecutive entries, and a group of kGroup lanes takes one
// (entry group, head):
//  - perfect balance whatever the row lengths: a 20K-entry hub row and a
//    stencil's 9-entry rows cost the same per entry;
//  - few lanes per dot product (each lane holds kVec·k features), so the
//    reduction is log2(kGroup) shuffles instead of 5, and kEntries entries'
//    loads are issued before the first shuffle;
//  - the group finds the row of its first entry with a (kGroup+1)-ary search
//    over the row offsets (each step, the lanes test kGroup pivots and a
//    ballot narrows the range: log_{kGroup+1}(rows) dependent loads), then
//    follows the row offsets as its entries cross row ends;
//  - after the reduction every lane holds every sum; lane k stores entry k,
//    so a group's stores are one short contiguous run.
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

template <int kVec>
__device__ __forceinline__ float dot_slice(const float* a, const float* b) {
  if constexpr (kVec == 4) {
    const float4 p = __ldg(reinterpret_cast<const float4*>(a));
    const float4 q = __ldg(reinterpret_cast<const float4*>(b));
    return p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
  } else {
    return __ldg(a) * __ldg(b);
  }
}

template <int kVec, int kGroup, int kEntries>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_edge_groups_kernel(SddmmArguments args,
                                                                                      int64_t rows) {
  const unsigned mask = sparse_cuda::subwarp_mask<kGroup>();
  const int lane = static_cast<int>(threadIdx.x) & (kGroup - 1);
  const int64_t width = args.heads * args.features;
  const int64_t groups = (args.nnz + kEntries - 1) / kEntries;
  const int64_t items = groups * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kGroup); item < items; item += sparse_cuda::subwarp_count(kGroup)) {
    const int64_t head = item % args.heads;
    const int64_t first = (item / args.heads) * kEntries;
    const int64_t last = first + kEntries < args.nnz ? first + kEntries : args.nnz;
    int64_t row = row_of_entry<kGroup>(args.indptr, rows, first, mask, lane);
    int64_t row_end = args.indptr[row + 1];
    int64_t entry_row[kEntries];
    const float* y_row[kEntries];
#pragma unroll
    for (int k = 0; k < kEntries; ++k) {
      const int64_t e = first + k < last ? first + k : first;  // past the end: repeat the first, not stored
      while (e >= row_end) row_end = args.indptr[++row + 1];
      entry_row[k] = row;
      y_row[k] = args.y + int64_t{__ldg(args.indices + e)} * width + head * args.features;
    }
    float partial[kEntries] = {};
    for (int64_t f = lane * kVec; f < args.features; f += kGroup * kVec) {
#pragma unroll
      for (int k = 0; k < kEntries; ++k) {
        partial[k] += dot_slice<kVec>(args.x + entry_row[k] * width + head * args.features + f, y_row[k] + f);
      }
    }
    float mine = 0.0f;
#pragma unroll
    for (int k = 0; k < kEntries; ++k) {
      const float sum = sparse_cuda::subwarp_sum<kGroup>(partial[k], mask);
      if (lane == k % kGroup) mine = sum;  // kEntries <= kGroup: lane k keeps entry k
    }
    if constexpr (kEntries <= kGroup) {
      if (lane < kEntries && first + lane < last) args.out[(first + lane) * args.heads + head] = mine;
    }
  }
}

// kEntries is at most kGroup (one store per lane); groups of 1 or 2 lanes take
// as many entries as they have lanes, i.e. fewer loads in flight per lane.
template <int kVec, int kGroup>
void launch(const SddmmArguments& args, int64_t rows, Device device) {
  constexpr int kEntries = kGroup < 4 ? kGroup : 4;
  const int64_t items = (args.nnz + kEntries - 1) / kEntries * args.heads;
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kGroup, device);
  sddmm_edge_groups_kernel<kVec, kGroup, kEntries>
      <<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args, rows);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_edge_groups_kernel");
}

template <int kVec>
void launch_group(int group, const SddmmArguments& args, int64_t rows, Device device) {
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

void launch_edge_groups(const SddmmArguments& args, int64_t rows, int group_lanes, bool vectorized, Device device) {
  SGNN_CHECK(group_lanes >= 1 && group_lanes <= 32 && (group_lanes & (group_lanes - 1)) == 0,
             "sddmm_dot: EdgeGroups lanes must be a power of two in 1..32, got ", group_lanes);
  if (vectorized) launch_group<4>(group_lanes, args, rows, device);
  else launch_group<1>(group_lanes, args, rows, device);
}

}  // namespace sgnn::ops::sddmm_cuda
