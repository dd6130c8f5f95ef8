// The DenseRows path of sddmm_dot (ops/sddmm_path.hpp), for graphs whose
// rows are long (Reddit-scale: ~330 entries a row). One warp per (work
// segment, head) of the plan:
//   - x[row] is loaded once into registers for the whole segment (lane l of
//     a group of kSub lanes holds features (c·kSub + l)·kVec … +kVec−1 for
//     chunk c < kChunks), instead of once per few entries;
//   - the warp reads 32 column indices with one coalesced load and hands
//     them out by shuffles;
//   - a step covers kStep = (32 / kSub) · kEntries entries: each group of
//     kSub lanes issues the loads of kEntries y rows before any arithmetic,
//     so kEntries · kChunks loads (128-bit when vectorized) are in flight;
//   - the group's kEntries partial dot products are reduced together by a
//     transposing butterfly (fold_sums), and consecutive lanes write the
//     step's consecutive outputs (one coalesced store).
// bfloat16 x and y: 16-byte loads of 8 elements, widened to float in registers.
// Every output is written by exactly one lane, in a fixed order of additions:
// deterministic, no atomics. A warp per item (grid-stride past the grid's limit).
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "ops/cuda/sddmm_arguments.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/sddmm_path.hpp"

namespace sgnn::ops::sddmm_cuda {

namespace {

constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kWarp = 32;

template <int kVec, int kSub, int kChunks, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_dense_rows_kernel(SddmmArguments<T> args) {
  constexpr int kEntries = entries_per_step(kVec, kSub, kChunks, kMaxStepFloats<T>);
  constexpr int kGroups = kWarp / kSub;
  constexpr int kStep = kGroups * kEntries;  // entries per step, divides 32
  constexpr int kCopies = kSub / kEntries;   // lanes of a group holding each total
  static_assert(kSub >= 1 && kSub <= kWarp && (kSub & (kSub - 1)) == 0, "kSub: a power of two up to 32");
  static_assert(kEntries <= kSub && kWarp % kStep == 0, "a step's entries fit the warp");

  const int lane = static_cast<int>(threadIdx.x) & (kWarp - 1);
  const int group = lane / kSub;
  const int sublane = lane & (kSub - 1);
  const int64_t features = args.features;
  const int64_t heads = args.heads;
  const int64_t width = heads * features;
  const int64_t items = args.segments.count * heads;
  // Whole warps share an item (blockDim.x is a multiple of 32), so every
  // branch on the item or the entry range below is uniform across the warp.
  for (int64_t item = sparse_cuda::global_subwarp(kWarp); item < items; item += sparse_cuda::subwarp_count(kWarp)) {
    const int64_t head = item % heads;
    const int64_t segment = item / heads;
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items

    // This lane's features of x[row, head], once for the whole segment.
    // Features past the width stay 0 and are never loaded (f < features
    // implies f + kVec ≤ features: vectorized widths are multiples of kVec).
    const T* x_row = args.x + range.row * width + head * features;
    float x_slice[kChunks][kVec];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int64_t f = static_cast<int64_t>(c * kSub + sublane) * kVec;
      if (f < features) {
        load_slice<kVec>(x_row + f, x_slice[c]);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v) x_slice[c][v] = 0.0f;
      }
    }

    for (int64_t base = range.begin; base < range.end; base += kWarp) {
      // Columns of entries base … base+31; past the segment's end, column 0
      // (a valid row of y: nnz > 0 implies n_cols ≥ 1), whose sums are not written.
      const int64_t mine = base + lane;
      const int32_t column = mine < range.end ? __ldg(args.indices + mine) : 0;
      for (int step = 0; step < kWarp && base + step < range.end; step += kStep) {
        float y_slice[kEntries][kChunks][kVec];
#pragma unroll
        for (int k = 0; k < kEntries; ++k) {
          const int32_t col = __shfl_sync(kFullWarp, column, step + group * kEntries + k);
          const T* y_row = args.y + int64_t{col} * width + head * features;
#pragma unroll
          for (int c = 0; c < kChunks; ++c) {
            const int64_t f = static_cast<int64_t>(c * kSub + sublane) * kVec;
            if (f < features) {
              load_slice<kVec>(y_row + f, y_slice[k][c]);
            } else {
#pragma unroll
              for (int v = 0; v < kVec; ++v) y_slice[k][c][v] = 0.0f;
            }
          }
        }
        float partial[kEntries];
#pragma unroll
        for (int k = 0; k < kEntries; ++k) {
          float sum = 0.0f;
#pragma unroll
          for (int c = 0; c < kChunks; ++c) {
#pragma unroll
            for (int v = 0; v < kVec; ++v) sum += x_slice[c][v] * y_slice[k][c][v];
          }
          partial[k] = sum;
        }
        const int slot = fold_sums<kEntries, kSub / 2>(partial, sublane, kFullWarp);
        const int64_t e = base + step + group * kEntries + slot;
        if (sublane % kCopies == 0 && e < range.end) args.out.store(e * heads + head, partial[0]);
      }
    }
  }
}

template <int kVec, int kSub, int kChunks, typename T>
void launch(const SddmmArguments<T>& args, Device device) {
  // One warp per item, blocks started in index order as others finish
  // (sparse_cuda::item_blocks): the rows in flight stay a narrow window of the
  // order, so in row order the y rows their neighbours share stay in L2, and
  // in longest-first order the last short items go to whichever SM frees up.
  // A grid capped at 32 blocks an SM (subwarp_blocks) whose warps stride
  // over the items lets them drift apart: on the H100 it took 2.68 ms
  // against 1.56 at width 256 on SBM with contiguous blocks in row order, and
  // 6-20% longer on Chung-Lu γ=3.0 (docs/kernels.md).
  const unsigned blocks = sparse_cuda::item_blocks(args.segments.count * args.heads, kWarp);
  sddmm_dense_rows_kernel<kVec, kSub, kChunks><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_dense_rows_kernel");
}

// Lanes per entry: enough for one vector per lane up to a full warp; wider
// rows take more chunks per lane (a power of two, the last ones partly empty).
template <int kVec, typename T>
void launch_for_width(int64_t units, const SddmmArguments<T>& args, Device device) {
  switch (sparse_cuda::next_power_of_two(units, kWarp)) {
    case 1: return launch<kVec, 1, 1>(args, device);
    case 2: return launch<kVec, 2, 1>(args, device);
    case 4: return launch<kVec, 4, 1>(args, device);
    case 8: return launch<kVec, 8, 1>(args, device);
    case 16: return launch<kVec, 16, 1>(args, device);
    default: break;
  }
  const int64_t chunks = (units + kWarp - 1) / kWarp;
  if (chunks <= 1) return launch<kVec, 32, 1>(args, device);
  if (chunks <= 2) return launch<kVec, 32, 2>(args, device);
  // Only the chunk counts some width up to kDenseRowsMaxFeatures needs are instantiated.
  if constexpr (kVec * kWarp * 2 < kDenseRowsMaxFeatures) {
    if (chunks <= 4) return launch<kVec, 32, 4>(args, device);
  }
  if constexpr (kVec * kWarp * 4 < kDenseRowsMaxFeatures) {
    if (chunks <= 8) return launch<kVec, 32, 8>(args, device);
    if (chunks <= 16) return launch<kVec, 32, 16>(args, device);
  }
  throw InvalidArgument("sddmm_dot (dense rows): " + std::to_string(args.features) +
                        " features per head exceed the kernel's " + std::to_string(kDenseRowsMaxFeatures));
}

}  // namespace

template <typename T>
void launch_dense_rows(const SddmmArguments<T>& args, bool vectorized, Device device) {
  constexpr int kVec = kVectorElements<T>;
  if (vectorized) launch_for_width<kVec>(args.features / kVec, args, device);
  else launch_for_width<1>(args.features, args, device);
}

template void launch_dense_rows(const SddmmArguments<float>&, bool, Device);
template void launch_dense_rows(const SddmmArguments<bfloat16>&, bool, Device);

}  // namespace sgnn::ops::sddmm_cuda
